import type { ServerResponse } from 'node:http';
import { planReply } from './plan-reply.ts';
import { chatCompletionsRenderer } from './render-chat-completions.ts';
import { generateContentRenderer, renderGenerateContentChunks } from './render-generate-content.ts';
import { messagesRenderer } from './render-messages.ts';
import { responsesRenderer } from './render-responses.ts';
import type { VendorFormat } from './render-vendor-error.ts';
import type { RenderContext, ReplyRenderer } from './reply-renderer.ts';
import { sendJson } from './send-response.ts';
import type { SimulationRequest } from './simulation-request.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';
import { writeEventStream } from './write-event-stream.ts';

const RENDERERS: Record<VendorFormat, ReplyRenderer> = {
  'chat-completions': chatCompletionsRenderer,
  responses: responsesRenderer,
  messages: messagesRenderer,
  'generate-content': generateContentRenderer,
};

const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

export interface GenerationCall {
  format: VendorFormat;
  request: SimulationRequest;
  knobs: SimulatorKnobs;
  id: string;
  /** Extra response headers (the vendor's request id). */
  headers: Record<string, string>;
  /** generate-content streams are SSE only with `?alt=sse`; otherwise one JSON array. */
  sse: boolean;
}

/** Plan the reply and send it whole or as a stream, in the format it was asked in. */
export async function answerGeneration(response: ServerResponse, call: GenerationCall): Promise<void> {
  const renderer = RENDERERS[call.format];
  const plan = planReply(call.request, call.knobs);
  const context: RenderContext = { id: call.id, created: Math.floor(Date.now() / 1000), request: call.request };
  if (!call.request.stream) {
    const body = renderer.renderBody(plan, context);
    // Cut in half: valid JSON never ends mid-object, so every client parser must fail.
    sendJson(response, 200, call.knobs.malformed ? body.slice(0, body.length >> 1) : body, call.headers);
    return;
  }
  if (!call.sse) {
    sendJson(response, 200, `[${renderGenerateContentChunks(plan, context).join(',\r\n')}]`, call.headers);
    return;
  }
  response.writeHead(200, { ...SSE_HEADERS, ...call.headers });
  await writeEventStream(response, renderer.renderEvents(plan, context), call.knobs, {
    streamError: (sent) => renderer.renderStreamError(sent, context),
    malformedEvent: renderer.malformedEvent,
  });
}
