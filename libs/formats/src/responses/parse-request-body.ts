import type { GatewayError } from '@switchyard/canonical';
import { z } from 'zod';
import { zodErrorToGatewayError } from '../shared/index.ts';
import { requestSchema, type RequestBody } from './schema.ts';

/** Validates a client body; the first issue becomes a 400 naming the offending param. */
export function parseRequestBody(body: unknown): RequestBody {
  const result = requestSchema.safeParse(body);
  if (result.success) return result.data;
  throw toGatewayError(result.error);
}

function toGatewayError(error: z.ZodError): GatewayError {
  const first = error.issues[0];
  return zodErrorToGatewayError(first === undefined ? error : new z.ZodError([preciseIssue(first)]));
}

/**
 * `input` and `content` are "string or array" unions, so zod reports a malformed item as an
 * `invalid_union` on `input` and the client would only learn "Invalid input". Follow the branch
 * that got furthest (the one the client meant) down to the real field, e.g.
 * `input[2].call_id`; the first branch wins a tie.
 */
function preciseIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: z.core.$ZodIssue | undefined;
  for (const branch of issue.errors) {
    const candidate = branch[0];
    if (candidate !== undefined && (best === undefined || candidate.path.length > best.path.length)) best = candidate;
  }
  if (best === undefined) return issue;
  const nested = preciseIssue(best);
  return { ...nested, path: [...issue.path, ...nested.path] };
}
