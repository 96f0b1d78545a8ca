import { isRecord } from '../shared/index.ts';
import { isBoolean, isNumber, isString, nullish } from '../shared/shape-checks.ts';
import type { GenerateContentResponse } from './response-schema.ts';

const USAGE_COUNTS = ['promptTokenCount', 'candidatesTokenCount', 'thoughtsTokenCount', 'toolUsePromptTokenCount', 'cachedContentTokenCount', 'totalTokenCount'];
const PLAIN_PART_KEYS = new Set(['text', 'thought', 'thoughtSignature']);

const nullishString = nullish(isString);
const nullishNumber = nullish(isNumber);
const nullishBoolean = nullish(isBoolean);

/**
 * A stream chunk of text (or thought) parts only, shaped as the schema reads it unchanged: what
 * almost every chunk of an answer is. For such a chunk `generateContentResponseSchema` would
 * succeed and hand back the same value, so the decoder takes it as it is and skips the schema,
 * which was most of the decoder's cost per chunk (docs/performance.md). The check is strict
 * where the schema transforms (a part's snake_case keys, `parts` given as one object) and where
 * it checks nested shapes (other part kinds, `promptFeedback`); such chunks, and anything else
 * unusual, answer false and go through the schema.
 */
export function isPlainChunk(value: unknown): value is GenerateContentResponse {
  if (!isRecord(value) || value.promptFeedback != null) return false;
  if (!nullishString(value.modelVersion) || !nullishString(value.responseId)) return false;
  if (value.usageMetadata != null && !isPlainUsage(value.usageMetadata)) return false;
  const candidates = value.candidates;
  if (candidates == null) return true;
  return Array.isArray(candidates) && candidates.every(isPlainCandidate);
}

/** Per chunk, so a loop rather than a callback made for each call. */
function isPlainUsage(usage: unknown): boolean {
  if (!isRecord(usage)) return false;
  for (const key of USAGE_COUNTS) if (!nullishNumber(usage[key])) return false;
  return true;
}

function isPlainCandidate(candidate: unknown): boolean {
  if (!isRecord(candidate) || !nullishNumber(candidate.index) || !nullishString(candidate.finishReason)) return false;
  const content = candidate.content;
  if (content == null) return true;
  if (!isRecord(content) || !nullishString(content.role)) return false;
  const parts = content.parts;
  return parts == null || (Array.isArray(parts) && parts.every(isPlainPart));
}

function isPlainPart(part: unknown): boolean {
  if (!isRecord(part)) return false;
  for (const key in part) if (!PLAIN_PART_KEYS.has(key)) return false;
  return nullishString(part.text) && nullishBoolean(part.thought) && nullishString(part.thoughtSignature);
}
