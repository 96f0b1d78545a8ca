import type { ServerResponse } from 'node:http';

/** Hop-by-hop headers are not copied from the router's answer to the client's. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection']);

/**
 * Writes the router's status and headers to the client response, in place of any set or held
 * before (admission's x-ratelimit-* headers give way to the router's). An answer of known length goes
 * out with its body in one write. So does a stream's head when its first bytes came with it;
 * otherwise it leaves a turn later, so the client sees it before the first event, as the router
 * sent it.
 */
export function relayHead(response: ServerResponse, statusCode: number, headers: Record<string, string | number | string[] | undefined>): void {
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name)) response.setHeader(name, value);
  }
  response.writeHead(statusCode);
  if (headers['content-length'] === undefined) setImmediate(flushHeadUnlessRelayed, response);
}

/**
 * Set on the client response while the bytes relayed so far end inside an SSE event (not on a
 * blank line); undefined until bytes were relayed. A property rather than a WeakMap entry: it is written for every relayed chunk,
 * and a WeakMap set per chunk was 1–2% of ingress CPU.
 */
const MID_EVENT = Symbol('switchyard.relayMidEvent');

type RelayedResponse = ServerResponse & { [MID_EVENT]?: boolean };

function flushHeadUnlessRelayed(response: ServerResponse): void {
  if ((response as RelayedResponse)[MID_EVENT] === undefined && !response.writableEnded && !response.destroyed) response.flushHeaders();
}

/** Notes whether the bytes relayed so far, `chunk` the last of them, end between two SSE events (a blank line); from the first, the head has gone with them. */
export function markRelayed(response: ServerResponse, chunk: Buffer): void {
  (response as RelayedResponse)[MID_EVENT] = chunk.length < 2 || chunk[chunk.length - 1] !== 0x0a || chunk[chunk.length - 2] !== 0x0a;
}

/**
 * After a router broke off mid-answer: closes a half-written SSE event with a blank line, so
 * the error event ingress writes next is an event of its own, never glued into another.
 */
export function closePartialEvent(response: ServerResponse): void {
  if (response.headersSent && !response.writableEnded && (response as RelayedResponse)[MID_EVENT] === true) response.write('\n\n');
}
