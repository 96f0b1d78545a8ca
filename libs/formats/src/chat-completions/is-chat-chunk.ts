import { isRecord } from '../shared/index.ts';
import { arrayOf, isNumber, isString, nullish, type Check } from '../shared/shape-checks.ts';
import type { ChatChunk } from './response-schema.ts';

/** Unlike the request guards' `looseObject`, no prototype or `__proto__` check: a chunk is JSON.parse's, and a false here fails the stream rather than falling back to zod. */
const fields =
  (shape: Record<string, Check>): Check =>
  (value) => {
    if (!isRecord(value)) return false;
    for (const key in shape) if (!(shape[key] as Check)(value[key])) return false;
    return true;
  };

const usage = fields({
  prompt_tokens: nullish(isNumber),
  completion_tokens: nullish(isNumber),
  prompt_tokens_details: nullish(fields({ cached_tokens: nullish(isNumber), cache_write_tokens: nullish(isNumber) })),
  completion_tokens_details: nullish(fields({ reasoning_tokens: nullish(isNumber) })),
});

const chunk = fields({
  id: nullish(isString),
  model: nullish(isString),
  created: nullish(isNumber),
  choices: nullish(
    arrayOf(
      fields({
        delta: nullish(
          fields({
            content: nullish(isString),
            refusal: nullish(isString),
            reasoning_content: nullish(isString),
            reasoning: nullish(isString),
            tool_calls: nullish(
              arrayOf(
                fields({
                  index: nullish(isNumber),
                  id: nullish(isString),
                  function: nullish(fields({ name: nullish(isString), arguments: nullish(isString) })),
                }),
              ),
            ),
          }),
        ),
        finish_reason: nullish(isString),
      }),
    ),
  ),
  usage: nullish(usage),
});

/**
 * The shape `chatChunkSchema` accepts, checked in place: the decoder runs once per stream
 * event, and zod's parse (which also copies the object) was its largest cost
 * (docs/performance.md). The zod schema stays the definition; a test holds the two together.
 */
export function isChatChunk(value: unknown): value is ChatChunk {
  return chunk(value);
}
