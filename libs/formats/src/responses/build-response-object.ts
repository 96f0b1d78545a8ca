import { createId } from '../shared/index.ts';
import type { ResponsesUsage } from './convert-usage.ts';
import type { ResponseOutcome } from './map-status.ts';
import type { OutputItem } from './output-items.ts';

export type ResponseStatus = ResponseOutcome['status'] | 'in_progress';

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  model: string;
  error: { code: string; message: string } | null;
  incomplete_details: ResponseOutcome['incompleteDetails'];
  instructions: null;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  tool_choice: 'auto';
  tools: [];
  temperature: null;
  top_p: null;
  text: { format: { type: 'text' } };
  reasoning: { effort: null; summary: null };
  usage: ResponsesUsage | null;
  metadata: Record<string, string>;
}

export interface ResponseObjectInit {
  id: string;
  createdAt: number;
  model: string;
  status: ResponseStatus;
  incompleteDetails?: ResponseOutcome['incompleteDetails'];
  output: OutputItem[];
  usage: ResponsesUsage | null;
}

/** What a failed response says; the canonical answer only tells that the upstream stopped with an error. */
const FAILED_ERROR = { code: 'server_error', message: 'The upstream model stopped with an error.' };

/**
 * The whole response object (protocols.md §4.2), with every field the openai SDK types mark
 * required. Request echo fields (tools, temperature, …) are not known at this point, so they
 * hold the vendor's neutral values or null rather than invented settings.
 */
export function buildResponseObject(init: ResponseObjectInit): ResponseObject {
  return {
    id: init.id,
    object: 'response',
    created_at: init.createdAt,
    status: init.status,
    model: init.model,
    error: init.status === 'failed' ? FAILED_ERROR : null,
    incomplete_details: init.incompleteDetails ?? null,
    instructions: null,
    output: init.output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    temperature: null,
    top_p: null,
    text: { format: { type: 'text' } },
    reasoning: { effort: null, summary: null },
    usage: init.usage,
    metadata: {},
  };
}

const VENDOR_ID_PREFIX = /^[a-z]+[-_]/;

/** `resp_` + the upstream id without its own prefix (`chatcmpl-7Qx` → `resp_7Qx`): the same answer keeps one id. */
export function responseIdFor(canonicalId: string): string {
  const suffix = canonicalId.replace(VENDOR_ID_PREFIX, '');
  return suffix === '' ? createId('resp_') : `resp_${suffix}`;
}

/** Item ids derived from the response id and position, so a response always names its items the same way. */
export function itemIdFor(prefix: 'msg' | 'fc' | 'rs', responseId: string, outputIndex: number): string {
  return `${prefix}_${responseId.slice(5)}_${outputIndex}`;
}
