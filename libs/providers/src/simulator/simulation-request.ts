/**
 * What the simulator needs to know about a request, whichever vendor format it came in.
 * Each `read-<format>-request.ts` fills it from the raw body; `plan-reply.ts` turns it into a
 * reply. Deliberately not the canonical request of @switchyard/canonical: the simulator must
 * stay independent of the translators it is used to test.
 */
export interface OfferedTool {
  name: string;
  /** JSON Schema (or Gemini's OpenAPI subset) of the arguments; may be absent. */
  schema: unknown;
}

export type ToolMode = 'auto' | 'none' | 'required';

export interface SimulationRequest {
  model: string;
  stream: boolean;
  /** The last text a user wrote, directives already removed. */
  userText: string;
  /** The text of the tool result when the conversation ends with one, else undefined. */
  toolResultText: string | undefined;
  /** Characters of every piece of input text (system, turns, tool calls and results). */
  inputCharacters: number;
  /** Images, audio and files seen in the input. */
  mediaParts: number;
  tools: OfferedTool[];
  toolMode: ToolMode;
  /** Names the caller restricted or forced the calls to (empty = any offered tool). */
  allowedToolNames: string[];
  parallelToolCalls: boolean;
  reasoning: boolean;
  /** Whether reasoning text is shown (Gemini hides thoughts unless includeThoughts). */
  reasoningVisible: boolean;
  /** The responses `include` asked for `reasoning.encrypted_content`. */
  encryptedReasoning: boolean;
  /** JSON output was asked for; `schema` is undefined for plain JSON mode. */
  json: { schema: unknown } | undefined;
  stopSequences: string[];
  maxOutputTokens: number | undefined;
  /** chat-completions `stream_options.include_usage`. */
  includeUsage: boolean;
  /** generate-content `responseModalities` includes IMAGE. */
  imageOutput: boolean;
}

/** Defaults every reader starts from, so a reader only states what its format says. */
export function emptySimulationRequest(model: string): SimulationRequest {
  return {
    model,
    stream: false,
    userText: '',
    toolResultText: undefined,
    inputCharacters: 0,
    mediaParts: 0,
    tools: [],
    toolMode: 'auto',
    allowedToolNames: [],
    parallelToolCalls: true,
    reasoning: false,
    reasoningVisible: true,
    encryptedReasoning: false,
    json: undefined,
    stopSequences: [],
    maxOutputTokens: undefined,
    includeUsage: false,
    imageOutput: false,
  };
}
