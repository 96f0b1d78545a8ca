/**
 * What each scenario sends to each kind of target. Every body carries the simulator's inline
 * directive (`[[sim:…]]` in the last user text), so it survives translation and reaches the
 * simulator whatever the gateway does with headers.
 */
export type TargetKind = 'direct' | 'null' | 'switchyard' | 'portkey';

export interface HttpCall {
  path: string;
  headers: Record<string, string>;
  body: string;
  stream: boolean;
  /** A substring a correct answer contains (checked once before any load). */
  expect: string;
}

export interface Scenario {
  id: string;
  title: string;
  stream: boolean;
  /** Client format equals the upstream protocol. */
  sameFormat: boolean;
  /** The request for a kind of target, or undefined when that target cannot serve it. */
  call(kind: TargetKind, context: CallContext): HttpCall | undefined;
}

export interface CallContext {
  /** Switchyard tenant key. */
  key: string;
  /** The simulator's origin (Portkey's custom host points there). */
  simulatorUrl: string;
}

export const SWITCHYARD_MODEL = { chat: 'bench-chat', messages: 'bench-messages', gemini: 'bench-gemini' } as const;
const SIM_MODEL = 'sim-bench';
const PROMPT = 'Write two lines about a railway switchyard at night.';
export const STREAM_CHUNKS = 50;
const STREAM_DIRECTIVE = `[[sim:words=${STREAM_CHUNKS},chunks=${STREAM_CHUNKS}]]`;

const json = { 'content-type': 'application/json' };
const chatBody = (model: string, text: string, stream: boolean) =>
  JSON.stringify({ model, max_tokens: 256, messages: [{ role: 'user', content: text }], ...(stream ? { stream: true } : {}) });
const messagesBody = (model: string, text: string, stream: boolean) =>
  JSON.stringify({ model, max_tokens: 256, messages: [{ role: 'user', content: text }], ...(stream ? { stream: true } : {}) });
const geminiBody = (text: string) => JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] });

/** chat-completions request to whatever speaks it at the root of `kind`. */
function chatCall(kind: TargetKind, context: CallContext, text: string, stream: boolean, upstream: 'chat' | 'messages'): HttpCall | undefined {
  const expect = stream ? '[DONE]' : '"choices"';
  switch (kind) {
    case 'direct':
    case 'null':
      if (upstream !== 'chat') return undefined;
      return { path: '/v1/chat/completions', headers: { ...json, authorization: 'Bearer sim' }, body: chatBody(SIM_MODEL, text, stream), stream, expect };
    case 'switchyard':
      return {
        path: '/v1/chat/completions',
        headers: { ...json, authorization: `Bearer ${context.key}` },
        body: chatBody(SWITCHYARD_MODEL[upstream], text, stream),
        stream,
        expect,
      };
    case 'portkey':
      return {
        path: '/v1/chat/completions',
        headers:
          upstream === 'chat'
            ? { ...json, authorization: 'Bearer sim', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${context.simulatorUrl}/v1` }
            : { ...json, 'x-api-key': 'sim', 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': `${context.simulatorUrl}/v1` },
        body: chatBody(SIM_MODEL, text, stream),
        stream,
        expect,
      };
  }
}

/** A messages request with `key`, to the simulator or to Switchyard. */
function messagesCall(key: string, model: string, text: string, stream: boolean): HttpCall {
  return {
    path: '/v1/messages',
    headers: { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' },
    body: messagesBody(model, text, stream),
    stream,
    expect: stream ? 'message_stop' : '"content"',
  };
}

/** A generate-content stream request with `key` for `model`, to the simulator or to Switchyard. */
function geminiStreamCall(key: string, model: string, text: string): HttpCall {
  return {
    path: `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
    headers: { ...json, 'x-goog-api-key': key },
    body: geminiBody(text),
    stream: true,
    expect: '"finishReason"',
  };
}

/**
 * A stream scenario in one format end to end: `send(key, model, text)` to the simulator (the
 * direct floor and the null proxy) or to Switchyard, and to Portkey as `portkey` makes the
 * simulator's request its own, where it serves the format.
 */
function sameFormatStream(
  id: string,
  format: string,
  model: string,
  send: (key: string, model: string, text: string) => HttpCall,
  portkey?: (call: HttpCall, context: CallContext) => HttpCall,
): Scenario {
  const text = `${PROMPT} ${STREAM_DIRECTIVE}`;
  return {
    id,
    title: `${format} stream, ${STREAM_CHUNKS} chunks (same format)`,
    stream: true,
    sameFormat: true,
    call: (kind, context) => {
      switch (kind) {
        case 'direct':
        case 'null':
          return send('sim', SIM_MODEL, text);
        case 'switchyard':
          return send(context.key, model, text);
        case 'portkey':
          return portkey?.(send('sim', SIM_MODEL, text), context);
      }
    },
  };
}

/** The request the gateway sends upstream, sent straight to the simulator: the direct baseline of translated scenarios. */
function directMessages(text: string, stream: boolean): HttpCall {
  return messagesCall('sim', SIM_MODEL, text, stream);
}

export const SCENARIOS: Scenario[] = [
  {
    id: 'chat',
    title: 'chat-completions, non-streaming, small body (same format)',
    stream: false,
    sameFormat: true,
    call: (kind, context) => chatCall(kind, context, PROMPT, false, 'chat'),
  },
  {
    id: 'chat-stream',
    title: `chat-completions stream, ${STREAM_CHUNKS} chunks (same format)`,
    stream: true,
    sameFormat: true,
    call: (kind, context) => chatCall(kind, context, `${PROMPT} ${STREAM_DIRECTIVE}`, true, 'chat'),
  },
  sameFormatStream('messages-stream', 'messages', SWITCHYARD_MODEL.messages, (key, model, text) => messagesCall(key, model, text, true), (call, context) => ({
    ...call,
    headers: { ...call.headers, 'x-portkey-provider': 'anthropic', 'x-portkey-custom-host': `${context.simulatorUrl}/v1` },
  })),
  // Portkey has no generate-content client API.
  sameFormatStream('gemini-stream', 'generate-content', SWITCHYARD_MODEL.gemini, geminiStreamCall),
  {
    id: 'chat>messages-stream',
    title: `chat-completions client → messages upstream, stream, ${STREAM_CHUNKS} chunks`,
    stream: true,
    sameFormat: false,
    call: (kind, context) =>
      kind === 'direct' ? directMessages(`${PROMPT} ${STREAM_DIRECTIVE}`, true) : chatCall(kind, context, `${PROMPT} ${STREAM_DIRECTIVE}`, true, 'messages'),
  },
  {
    id: 'messages>chat-stream',
    title: `messages client → chat-completions upstream, stream, ${STREAM_CHUNKS} chunks`,
    stream: true,
    sameFormat: false,
    call: (kind, context) => {
      const text = `${PROMPT} ${STREAM_DIRECTIVE}`;
      if (kind === 'direct') return chatCall('direct', context, text, true, 'chat');
      if (kind === 'null') return undefined;
      // Portkey 1.15.2 answers /v1/messages on an OpenAI provider with "messages is not supported by openai".
      if (kind === 'portkey') return undefined;
      return messagesCall(context.key, SWITCHYARD_MODEL.chat, text, true);
    },
  },
  {
    id: 'gemini>chat',
    title: 'generate-content client → chat-completions upstream, non-streaming',
    stream: false,
    sameFormat: false,
    call: (kind, context) => {
      if (kind === 'direct') return chatCall('direct', context, PROMPT, false, 'chat');
      if (kind !== 'switchyard') return undefined;
      return {
        path: `/v1beta/models/${SWITCHYARD_MODEL.chat}:generateContent`,
        headers: { ...json, 'x-goog-api-key': context.key },
        body: geminiBody(PROMPT),
        stream: false,
        expect: '"candidates"',
      };
    },
  },
];

/** The slow-stream scenario: one event a second, same format, held for `seconds`. */
export function slowStreamCall(kind: TargetKind, context: CallContext, seconds: number, delayMs: number): HttpCall | undefined {
  const events = Math.max(1, Math.round((seconds * 1000) / delayMs));
  return chatCall(kind === 'direct' ? 'direct' : kind, context, `${PROMPT} [[sim:words=${events},chunks=${events},chunk_delay_ms=${delayMs}]]`, true, 'chat');
}

/** One request, checked: a benchmark of fast 4xx answers would be worthless. */
export async function checkOnce(baseUrl: string, call: HttpCall): Promise<string | undefined> {
  try {
    const response = await fetch(baseUrl + call.path, { method: 'POST', headers: call.headers, body: call.body, signal: AbortSignal.timeout(15_000) });
    const text = await response.text();
    if (response.status !== 200) return `status ${response.status}: ${text.slice(0, 300)}`;
    if (!text.includes(call.expect)) return `answer lacks ${call.expect}: ${text.slice(0, 300)}`;
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
