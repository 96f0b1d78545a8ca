import type { ServerResponse } from 'node:http';
import type { VendorError } from './render-vendor-error.ts';

/** One JSON answer in one write, with a Content-Length so keep-alive needs no chunking. */
export function sendJson(response: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

export function sendVendorError(response: ServerResponse, error: VendorError): void {
  sendJson(response, error.status, error.body, error.headers);
}
