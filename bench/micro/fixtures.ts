import type { FormatId, StreamPart } from '@switchyard/canonical';
import { wireFormats } from '@switchyard/formats';
import { createSseParser, type SseEvent } from '@switchyard/sse';

/** tinybench run options for every group (BENCH_TIME_MS to lengthen). */
export const RUN = { time: Number(process.env.BENCH_TIME_MS ?? 400), warmupTime: 100 };

export const FORMATS: FormatId[] = ['chat-completions', 'responses', 'messages', 'generate-content'];

const SYSTEM = 'You are a concise assistant for railway operations.';
const USER = 'Which track should the 18:05 freight use tonight, given that track 4 is closed for maintenance?';

/** A small, typical request body in each client format (system prompt, one user turn, a few settings). */
export const REQUEST_BODIES: Record<FormatId, string> = {
  'chat-completions': JSON.stringify({
    model: 'bench-model',
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: USER },
    ],
    max_tokens: 256,
    temperature: 0.2,
  }),
  responses: JSON.stringify({ model: 'bench-model', instructions: SYSTEM, input: USER, max_output_tokens: 256, temperature: 0.2 }),
  messages: JSON.stringify({ model: 'bench-model', system: SYSTEM, max_tokens: 256, temperature: 0.2, messages: [{ role: 'user', content: USER }] }),
  'generate-content': JSON.stringify({
    systemInstruction: { parts: [{ text: SYSTEM }] },
    contents: [{ role: 'user', parts: [{ text: USER }] }],
    generationConfig: { maxOutputTokens: 256, temperature: 0.2 },
  }),
};

/** What the router passes beside the body (generate-content takes the model from the URL). */
export const REQUEST_CONTEXT = { model: 'bench-model', stream: false };

export const STREAM_TEXT_CHUNKS = 50;

/** start, 50 text deltas, finish: the canonical shape of a plain streamed answer. */
export function canonicalStream(): StreamPart[] {
  const parts: StreamPart[] = [{ type: 'start', id: 'msg_bench_0001', model: 'bench-model', created: 1_760_000_000 }];
  for (let index = 0; index < STREAM_TEXT_CHUNKS; index++) parts.push({ type: 'text-delta', text: `word${index} ` });
  parts.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: { inputTokens: 30, outputTokens: STREAM_TEXT_CHUNKS } });
  return parts;
}

/** The SSE text an upstream of `format` sends for the canonical stream (made with that format's own encoder). */
export function upstreamSseText(format: FormatId): string {
  const encoder = wireFormats[format].stream.createEncoder({ model: 'bench-model', requestId: 'req_bench', includeUsage: true });
  return canonicalStream()
    .map((part) => encoder.push(part))
    .join('');
}

/** The same stream as parsed events, ready for a decoder. */
export function upstreamEvents(format: FormatId): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  parser.push(Buffer.from(upstreamSseText(format)));
  parser.end();
  return events;
}
