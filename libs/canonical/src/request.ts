import type { FormatId } from './format-id.ts';
import type { CanonicalMessage } from './message-parts.ts';

export interface CanonicalTool {
  name: string;
  description?: string;
  /** JSON Schema of the arguments object; `{type:'object',properties:{}}` when the client sent none. */
  parameters: Record<string, unknown>;
  strict?: boolean;
}

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json' }
  | {
      type: 'json-schema';
      name?: string;
      description?: string;
      schema: Record<string, unknown>;
      strict?: boolean;
    };

export type ReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max';

export interface ReasoningOptions {
  /** Set when the client spoke in efforts (chat, responses, messages output_config). */
  effort?: ReasoningEffort;
  /** Set when the client spoke in budgets (messages thinking, generate-content thinkingBudget; -1 = dynamic). */
  budgetTokens?: number;
  /** The client wants reasoning text (summaries / thoughts) in the answer. */
  includeThoughts?: boolean;
}

/** Vendor fields with no canonical meaning, passed only to an upstream of the same format. */
export interface Extensions {
  format: FormatId;
  fields: Record<string, unknown>;
}

export interface CanonicalRequest {
  /** Public model name as the client sent it (for generate-content: from the URL). */
  model: string;
  messages: CanonicalMessage[];
  tools?: CanonicalTool[];
  toolChoice?: ToolChoice;
  /** Restricts which tools may be called (chat/responses `allowed_tools`). */
  allowedTools?: string[];
  parallelToolCalls?: boolean;
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Number of choices; translation supports only 1 (n > 1 is answered only by a same-format upstream). */
  n?: number;
  responseFormat?: ResponseFormat;
  reasoning?: ReasoningOptions;
  /** Output modalities beyond text (generate-content `responseModalities`). */
  outputModalities?: Array<'text' | 'image' | 'audio'>;
  /** End-user identifier (chat `user`/`safety_identifier`, messages `metadata.user_id`). */
  user?: string;
  metadata?: Record<string, string>;
  stream: boolean;
  /** chat-completions `stream_options.include_usage`: the client wants the usage chunk. */
  includeUsage?: boolean;
  /** responses: whether to keep this exchange for `previous_response_id` (default true). */
  store?: boolean;
  previousResponseId?: string;
  extensions?: Extensions;
}
