import { GatewayError, type ModelInfo } from '@switchyard/canonical';

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/**
 * `GET /v1beta/models` (protocols.md §8): `pageSize` (default 50, at most 1000) and an opaque
 * `pageToken` that is the base64url of the next offset in the catalog's order [policy].
 * `nextPageToken` is left out on the last page, as Google does.
 */
export function renderModelList(models: ModelInfo[], query: Record<string, string | undefined>): unknown {
  const pageSize = readPageSize(query.pageSize);
  const offset = readPageToken(query.pageToken);
  const page = models.slice(offset, offset + pageSize).map(renderModel);
  const next = offset + pageSize;
  return next < models.length ? { models: page, nextPageToken: Buffer.from(String(next)).toString('base64url') } : { models: page };
}

function readPageSize(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PAGE_SIZE;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 0) throw new GatewayError('invalid_request', 'pageSize must be a non-negative integer.', { param: 'pageSize' });
  // Google treats 0 as "use the default" and caps large sizes rather than rejecting them.
  return size === 0 ? DEFAULT_PAGE_SIZE : Math.min(size, MAX_PAGE_SIZE);
}

function readPageToken(token: string | undefined): number {
  if (token === undefined || token === '') return 0;
  const decoded = Buffer.from(token, 'base64url').toString();
  if (!/^\d+$/.test(decoded)) throw new GatewayError('invalid_request', 'pageToken is not a token this server issued.', { param: 'pageToken' });
  return Number(decoded);
}

/**
 * One model in Google's shape. Catalog models carry no version, so `version` is Google's
 * first-version string "001"; the wire name is `supportedGenerationMethods` (js-genai renames it).
 */
export function renderModel(model: ModelInfo): Record<string, unknown> {
  const rendered: Record<string, unknown> = {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.displayName ?? model.id,
  };
  if (model.description !== undefined) rendered.description = model.description;
  if (model.maxInputTokens !== undefined) rendered.inputTokenLimit = model.maxInputTokens;
  if (model.maxOutputTokens !== undefined) rendered.outputTokenLimit = model.maxOutputTokens;
  rendered.supportedGenerationMethods = model.kind === 'embedding' ? ['embedContent', 'batchEmbedContents'] : ['generateContent', 'countTokens'];
  return rendered;
}
