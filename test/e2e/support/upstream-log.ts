import type { MODEL_FOR_PROTOCOL } from './topology.ts';

export type Upstream = keyof typeof MODEL_FOR_PROTOCOL;

/** One request the simulator received (GET /_sim/requests). */
export interface UpstreamRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

/** A JSON value seen through the simulator's log; tests index into it freely. */
type Json = Record<string, unknown>;

/**
 * The last upstream request whose body mentions `marker` (a unique string the test put in the
 * user text). Keyed by marker rather than "the last request" so a stray request cannot be
 * mistaken for the one under test.
 */
export async function upstreamRequestWith(simulatorUrl: string, marker: string): Promise<UpstreamRequest> {
  const requests = (await (await fetch(`${simulatorUrl}/_sim/requests`)).json()) as UpstreamRequest[];
  const found = requests.findLast((request) => JSON.stringify(request.body).includes(marker));
  if (found === undefined) throw new Error(`no upstream request mentions ${marker}`);
  return found;
}

/** Every upstream request mentioning `marker`, oldest first (multi-turn tests). */
export async function upstreamRequestsWith(simulatorUrl: string, marker: string): Promise<UpstreamRequest[]> {
  const requests = (await (await fetch(`${simulatorUrl}/_sim/requests`)).json()) as UpstreamRequest[];
  return requests.filter((request) => JSON.stringify(request.body).includes(marker));
}

function asArray(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}

/**
 * The content parts of the last user turn in the upstream's own shape: chat `messages[].content`,
 * responses `input[].content`, messages `messages[].content`, generate-content `contents[].parts`.
 */
export function lastUserParts(upstream: Upstream, body: Json): Json[] {
  switch (upstream) {
    case 'chat-completions':
    case 'messages': {
      const content = asArray(body.messages).findLast((message) => message.role === 'user')?.content;
      return typeof content === 'string' ? [{ type: 'text', text: content }] : asArray(content);
    }
    case 'responses': {
      if (typeof body.input === 'string') return [{ type: 'input_text', text: body.input }];
      const content = asArray(body.input).findLast((item) => item.role === 'user')?.content;
      return typeof content === 'string' ? [{ type: 'input_text', text: content }] : asArray(content);
    }
    case 'generate-content':
      return asArray(asArray(body.contents).findLast((content) => content.role !== 'model')?.parts);
  }
}

/** The generation knobs of an upstream body in one place (generate-content nests them). */
export function generationSettings(upstream: Upstream, body: Json): Json {
  return upstream === 'generate-content' ? ((body.generationConfig as Json | undefined) ?? {}) : body;
}
