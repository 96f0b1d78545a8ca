import type { CanonicalUsage } from '@switchyard/canonical';
import { endsLikeObject, NATURAL, nonNullKeyPattern, PLAIN_STRING as STRING } from '../shared/index.ts';
import { convertToCanonicalUsage } from './convert-usage.ts';
import type { ChatChunk } from './response-schema.ts';
import { USAGE_OBJECT, usageOfMatch } from './usage-pattern.ts';

/** What a same-format relay watches a chunk for: a non-null key that may finish the answer, carry usage or report an error. */
export const WATCHED_KEYS = nonNullKeyPattern(['finish_reason', 'usage', 'error']);

/** What the relay monitor needs of a chunk it reads. */
export interface ChunkSummary {
  /** It holds a first choice. */
  readonly choice: boolean;
  /** That choice has a finish reason. */
  readonly finished: boolean;
  readonly usage: CanonicalUsage | undefined;
}

const OPENED: ChunkSummary = { choice: true, finished: false, usage: undefined };
const FINISHED: ChunkSummary = { choice: true, finished: true, usage: undefined };

/** How a chunk starts as OpenAI writes it (and the simulator, vLLM, DeepSeek…): compact, up to its `choices` value. */
export const CHUNK_HEAD =
  `\\{"id":${STRING},"object":"chat\\.completion\\.chunk","created":${NATURAL},"model":${STRING},` +
  `(?:"service_tier":(?:${STRING}|null),)?(?:"system_fingerprint":(?:${STRING}|null),)?"choices":`;

const HEAD = new RegExp(`^${CHUNK_HEAD}`);

/** OpenAI's per-chunk padding, last. */
export const OBFUSCATION = `(?:,"obfuscation":${STRING})?`;

/** The rest of the chunk that finishes the one choice: an empty delta, a finish reason, no usage. */
const FINISH_TAIL = new RegExp(
  `\\[\\{"index":${NATURAL},"delta":\\{\\},(?:"logprobs":null,)?"finish_reason":"[^"\\\\]+"\\}\\](?:,"usage":null)?${OBFUSCATION}\\}$`,
  'y',
);

/** The rest of the usage chunk: no choice, the usage object in OpenAI's own shape. */
const USAGE_TAIL = new RegExp(`\\[\\],"usage":${USAGE_OBJECT}${OBFUSCATION}\\}$`, 'y');

/** The start of a first choice, the rest unread (see readChunkSummary). */
const FIRST_CHOICE = new RegExp(`\\[\\{"index":${NATURAL},`, 'y');

const CHOICES_KEY = '"choices"';

/**
 * What the relay monitor needs of a chunk, read from its text without `JSON.parse` when the
 * chunk is laid out as OpenAI writes it: the parse of the three chunks a stream's monitor reads
 * (the first, the finish and the usage chunk), only to learn a flag or a few counts, was its
 * largest cost (docs/performance.md). Else `undefined`, and the caller parses the chunk; an
 * unusual chunk costs the parse, never a wrong answer.
 *
 * The finish and usage chunks are matched whole, from the head to the closing brace, so
 * nothing in them goes unread. A chunk that opens a first choice, ends like an object and
 * holds no watched key (the role chunk that starts a stream) is read as far as that: the rest
 * of it, like every content chunk after it, is relayed unchecked. A second `choices` key
 * anywhere in it, which the parse would read instead of the first, sends it to the parse.
 * Content cannot fool the patterns: a `"` inside a JSON string is escaped (shared/json-text.ts).
 */
export function readChunkSummary(data: string): ChunkSummary | undefined {
  const head = HEAD.exec(data);
  if (head === null) return undefined;
  const at = head[0].length;
  FINISH_TAIL.lastIndex = at;
  if (FINISH_TAIL.test(data)) return FINISHED;
  USAGE_TAIL.lastIndex = at;
  const usage = USAGE_TAIL.exec(data);
  if (usage !== null) return { choice: false, finished: false, usage: usageOfMatch(usage) };
  FIRST_CHOICE.lastIndex = at;
  if (FIRST_CHOICE.test(data) && endsLikeObject(data) && !data.includes(CHOICES_KEY, at) && !WATCHED_KEYS.test(data)) return OPENED;
  return undefined;
}

/** The same summary of a parsed chunk. */
export function summarizeChunk(chunk: ChatChunk): ChunkSummary {
  const choice = chunk.choices?.[0];
  return {
    choice: choice !== undefined,
    finished: choice?.finish_reason != null,
    usage: chunk.usage == null ? undefined : convertToCanonicalUsage(chunk.usage),
  };
}
