import { hashText, shortHash } from './hash-text.ts';
import { sampleArguments, sampleFromSchema } from './sample-from-schema.ts';
import type { SimulationRequest } from './simulation-request.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';
import { groupWords, splitCharacters, splitWords } from './split-into-pieces.ts';

export type FinishReason = 'stop' | 'stop_sequence' | 'length' | 'tool_calls';

export interface PlannedToolCall {
  name: string;
  arguments: Record<string, unknown>;
  argumentsJson: string;
  /** How chat, responses and messages stream the arguments; Gemini sends them whole. */
  argumentPieces: string[];
}

export interface PlannedUsage {
  /** Counted input tokens, cache excluded. */
  input: number;
  /** Cache-read tokens, on top of `input`. */
  cached: number;
  /** Visible output tokens (words of text, or argument size for tool calls). */
  output: number;
  /** Reasoning tokens, on top of `output`. */
  reasoning: number;
}

/** One reply, decided once and rendered by whichever format the request came in. */
export interface ReplyPlan {
  reasoningText: string;
  reasoningPieces: string[];
  text: string;
  textPieces: string[];
  toolCalls: PlannedToolCall[];
  finish: FinishReason;
  stopSequence: string | undefined;
  usage: PlannedUsage | undefined;
  /** Opaque, stable token to build signatures from (thinking, thoughtSignature, encrypted reasoning). */
  signature: string;
}

// What a low-detail image costs at OpenAI; any constant would do, it only has to be stable.
const TOKENS_PER_MEDIA_PART = 85;
const ECHO_CHARACTERS = 60;
const ARGUMENT_FRAGMENTS = 3;
const FILLER = [
  'alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliett', 'kilo', 'lima',
  'mike', 'november', 'oscar', 'papa', 'quebec', 'romeo', 'sierra', 'tango', 'uniform', 'victor', 'whiskey',
  'xray', 'yankee', 'zulu', 'amber', 'cobalt', 'ember', 'harbor', 'meadow', 'willow',
];

function clip(text: string, length: number): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, length);
}

/** "Simulated reply to: <echo>." then filler words until the reply has `words` words. */
function buildProse(request: SimulationRequest, words: number): string {
  const prefix =
    request.toolResultText === undefined
      ? `Simulated reply to: ${clip(request.userText, ECHO_CHARACTERS)}.`
      : `Simulated reply to tool result: ${clip(request.toolResultText, ECHO_CHARACTERS)}.`;
  const seed = hashText(prefix);
  const parts = [prefix];
  // 11 is coprime with the 32 filler words, so the sequence walks all of them before repeating.
  for (let index = splitWords(prefix).length; index < words; index += 1) {
    parts.push(FILLER[(seed + index * 11) % FILLER.length] as string);
  }
  return parts.join(' ');
}

function buildText(request: SimulationRequest, knobs: SimulatorKnobs): string {
  if (request.json === undefined) return buildProse(request, knobs.words);
  if (request.json.schema === undefined) return JSON.stringify({ reply: buildProse(request, knobs.words) });
  return JSON.stringify(sampleFromSchema(request.json.schema));
}

function planToolCalls(request: SimulationRequest, knobs: SimulatorKnobs): PlannedToolCall[] {
  if (request.tools.length === 0 || request.toolMode === 'none' || request.toolResultText !== undefined) return [];
  const allowed = request.allowedToolNames;
  const offered = allowed.length === 0 ? request.tools : request.tools.filter((tool) => allowed.includes(tool.name));
  // A forced name the caller forgot to declare is still called, as a real model would try to.
  const candidates = offered.length > 0 ? offered : allowed.map((name) => ({ name, schema: undefined }));
  const count = request.parallelToolCalls ? Math.max(1, knobs.tool_calls) : 1;
  const fragments = knobs.chunks > 0 ? knobs.chunks : ARGUMENT_FRAGMENTS;
  const calls: PlannedToolCall[] = [];
  for (let index = 0; index < count; index += 1) {
    const tool = candidates[index % candidates.length];
    if (tool === undefined) break;
    const args = sampleArguments(tool.schema);
    const argumentsJson = JSON.stringify(args);
    calls.push({ name: tool.name, arguments: args, argumentsJson, argumentPieces: splitCharacters(argumentsJson, fragments) });
  }
  return calls;
}

interface CutText {
  words: string[];
  finish: FinishReason;
  stopSequence: string | undefined;
}

/** Max tokens first (a stop sequence past the cut is never reached), then the earliest stop. */
function cutText(full: string, request: SimulationRequest): CutText {
  let words = splitWords(full);
  let finish: FinishReason = 'stop';
  const limit = request.maxOutputTokens;
  if (limit !== undefined && words.length > Math.max(0, limit)) {
    words = words.slice(0, Math.max(0, limit));
    finish = 'length';
  }
  let text = words.join('').trimEnd();
  let stopAt = -1;
  let stopSequence: string | undefined;
  for (const sequence of request.stopSequences) {
    const at = text.indexOf(sequence);
    if (at !== -1 && (stopAt === -1 || at < stopAt)) {
      stopAt = at;
      stopSequence = sequence;
    }
  }
  if (stopSequence !== undefined) {
    text = text.slice(0, stopAt);
    finish = 'stop_sequence';
  }
  words = splitWords(text);
  return { words, finish, stopSequence };
}

/** ceil(characters / 4), at least 1, plus a fixed price per image or file. */
export function countInputTokens(request: SimulationRequest): number {
  return Math.max(1, Math.ceil(request.inputCharacters / 4)) + request.mediaParts * TOKENS_PER_MEDIA_PART;
}

/** Decide the whole reply (text, reasoning, tool calls, finish, usage) from the request. */
export function planReply(request: SimulationRequest, knobs: SimulatorKnobs): ReplyPlan {
  const reasoningWords = request.reasoning
    ? splitWords(`Thinking about ${JSON.stringify(clip(request.toolResultText ?? request.userText, 40))}: a short direct answer fits.`)
    : [];
  const reasoningText = reasoningWords.join('');
  const toolCalls = planToolCalls(request, knobs);
  const cut: CutText =
    toolCalls.length > 0 ? { words: [], finish: 'tool_calls', stopSequence: undefined } : cutText(buildText(request, knobs), request);
  const output =
    toolCalls.length > 0
      ? toolCalls.reduce((sum, call) => sum + Math.max(1, Math.ceil(call.argumentsJson.length / 4)), 0)
      : cut.words.length;
  return {
    reasoningText,
    reasoningPieces: groupWords(reasoningWords, knobs.chunks),
    text: cut.words.join(''),
    textPieces: groupWords(cut.words, knobs.chunks),
    toolCalls,
    finish: cut.finish,
    stopSequence: cut.stopSequence,
    usage: knobs.no_usage
      ? undefined
      : {
          input: countInputTokens(request),
          cached: knobs.cached_tokens,
          output,
          reasoning: reasoningWords.length + knobs.reasoning_tokens,
        },
    signature: shortHash(reasoningText + request.userText),
  };
}
