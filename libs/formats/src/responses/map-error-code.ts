import { GatewayError, type ErrorKind } from '@switchyard/canonical';

/**
 * Error codes of failed responses and in-stream `error` events (protocols.md §4.2, §7.3),
 * mapped to the kind the client is told. A code not listed is the upstream's fault.
 */
const KIND_FOR_CODE: Readonly<Record<string, ErrorKind>> = {
  rate_limit_exceeded: 'rate_limited',
  insufficient_quota: 'quota_exhausted',
  server_error: 'upstream_error',
  vector_store_timeout: 'upstream_timeout',
  invalid_prompt: 'invalid_request',
  context_length_exceeded: 'invalid_request',
  invalid_image: 'invalid_request',
  invalid_image_format: 'invalid_request',
  invalid_base64_image: 'invalid_request',
  invalid_image_url: 'invalid_request',
  invalid_image_mode: 'invalid_request',
  image_too_large: 'invalid_request',
  image_too_small: 'invalid_request',
  image_parse_error: 'invalid_request',
  image_file_too_large: 'invalid_request',
  image_file_not_found: 'invalid_request',
  empty_image_file: 'invalid_request',
  unsupported_image_media_type: 'invalid_request',
  failed_to_download_image: 'invalid_request',
  image_content_policy_violation: 'invalid_request',
};

export function errorFromCode(
  code: string | null | undefined,
  message: string | null | undefined,
  param?: string | null,
): GatewayError {
  const kind = code != null && Object.hasOwn(KIND_FOR_CODE, code) ? KIND_FOR_CODE[code] : undefined;
  return new GatewayError(kind ?? 'upstream_error', message ?? 'The upstream failed to produce a response.', {
    ...(code == null ? {} : { code }),
    ...(param == null ? {} : { param }),
  });
}
