import { GatewayError } from '@switchyard/canonical';
import { wireFormats, type Route } from '@switchyard/formats';

/**
 * The ingress → router hop's framing (docs/architecture.md, "The hop"): after an HTTP upgrade,
 * both ends exchange frames of a 9-byte head — payload length (u32), type (u8), stream id
 * (u32), big-endian — and the payload. Many requests share one connection, each a stream of
 * frames under its own id; stream 0 is the connection itself.
 */
export const FRAME_HEAD_BYTES = 9;

/** Ingress → router: a request. Payload: meta length (u32), meta JSON (HopRequestMeta), the client's raw body. */
export const OPEN = 1;
/** Ingress → router: the client went away or the request was aborted; the router stops serving it. */
export const CANCEL = 2;
/** Router → ingress: the answer's status and headers. Payload: JSON `[status, headers]`. */
export const HEAD = 3;
/** Router → ingress: bytes of the answer's body. */
export const DATA = 4;
/** Router → ingress: the answer is complete; its payload is the body's last bytes (possibly none). */
export const END = 5;
/** Router → ingress, stream 0: no new streams on this connection (the router is draining). */
export const GOAWAY = 6;

/** The upgrade token of the hop, and the path it is asked for on. */
export const HOP_PROTOCOL = 'switchyard-hop/1';
export const HOP_PATH = '/internal/v1/hop';

/** A frame's head; the payload follows it as its own chunk, so no payload is copied to frame it. */
export function frameHead(type: number, stream: number, payloadLength: number): Buffer {
  // Under half of Buffer.poolSize: a slice of the shared pool, not an allocation of its own.
  const head = Buffer.allocUnsafe(FRAME_HEAD_BYTES);
  head.writeUInt32BE(payloadLength, 0);
  head[4] = type;
  head.writeUInt32BE(stream, 5);
  return head;
}

export type FrameListener = (type: number, stream: number, payload: Buffer) => void;

/**
 * Cuts a connection's reads into frames. A payload that lies inside one read is handed over as
 * a view of it; one that spans reads is gathered and joined once, when its last byte is in (a
 * 32 MiB body in 64 KiB reads is copied once, not once per read).
 */
export class FrameReader {
  readonly #onFrame: FrameListener;
  readonly #maxPayload: number;
  #held: Buffer[] = [];
  #heldBytes = 0;
  /** Bytes the frame begun in `#held` needs, head included, before it can be handed over. */
  #needed = FRAME_HEAD_BYTES;

  constructor(onFrame: FrameListener, maxPayload: number) {
    this.#onFrame = onFrame;
    this.#maxPayload = maxPayload;
  }

  /** Throws a GatewayError when the peer announces a payload over the limit: the connection is not to be trusted further. */
  push(read: Buffer): void {
    let bytes = read;
    if (this.#heldBytes > 0) {
      this.#held.push(read);
      this.#heldBytes += read.length;
      if (this.#heldBytes < this.#needed) return;
      bytes = Buffer.concat(this.#held, this.#heldBytes);
      this.#held = [];
      this.#heldBytes = 0;
    }
    let offset = 0;
    this.#needed = FRAME_HEAD_BYTES;
    while (bytes.length - offset >= FRAME_HEAD_BYTES) {
      const length = bytes.readUInt32BE(offset);
      if (length > this.#maxPayload) throw new GatewayError('internal', `Hop frame of ${length} bytes is over the limit of ${this.#maxPayload}.`);
      const end = offset + FRAME_HEAD_BYTES + length;
      if (end > bytes.length) {
        this.#needed = FRAME_HEAD_BYTES + length;
        break;
      }
      this.#onFrame(bytes[offset + 4] as number, bytes.readUInt32BE(offset + 5), bytes.subarray(offset + FRAME_HEAD_BYTES, end));
      offset = end;
    }
    if (offset < bytes.length) {
      const rest = bytes.subarray(offset);
      this.#held.push(rest);
      this.#heldBytes = rest.length;
    }
  }
}

/** What travels with a request besides its body (RouteRequest less what the router makes itself). */
export interface HopRequestMeta {
  route: Route;
  tenantId: string;
  keyId: string;
  requestId: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  estimatedTokens: number;
  admittedAt?: number;
}

/** An OPEN frame's payload as the chunks to write after its head: the meta's length and text, then the body as it is. */
export function openPayload(meta: HopRequestMeta, body: Buffer): { chunks: [Buffer, Buffer]; length: number } {
  const text = JSON.stringify(meta);
  const metaBytes = Buffer.allocUnsafe(4 + Buffer.byteLength(text));
  metaBytes.writeUInt32BE(metaBytes.length - 4, 0);
  metaBytes.write(text, 4);
  return { chunks: [metaBytes, body], length: metaBytes.length + body.length };
}

/** Splits an OPEN payload; undefined when it is not one (a peer speaking something else). */
export function readOpenPayload(payload: Buffer): { meta: HopRequestMeta; body: Buffer } | undefined {
  if (payload.length < 4) return undefined;
  const metaEnd = 4 + payload.readUInt32BE(0);
  if (metaEnd > payload.length) return undefined;
  let meta: unknown;
  try {
    meta = JSON.parse(payload.toString('utf8', 4, metaEnd));
  } catch {
    return undefined;
  }
  if (!isRequestMeta(meta)) return undefined;
  // A copy: the body outlives the read it came in (a view would keep the whole read, other streams' frames included).
  return { meta, body: Buffer.from(payload.subarray(metaEnd)) };
}

function isRequestMeta(value: unknown): value is HopRequestMeta {
  if (typeof value !== 'object' || value === null) return false;
  const meta = value as Record<string, unknown>;
  return (
    isRoute(meta.route) &&
    typeof meta.tenantId === 'string' &&
    typeof meta.keyId === 'string' &&
    typeof meta.requestId === 'string' &&
    isStringRecord(meta.headers) &&
    isStringRecord(meta.query) &&
    typeof meta.estimatedTokens === 'number' &&
    (meta.admittedAt === undefined || typeof meta.admittedAt === 'number')
  );
}

function isRoute(value: unknown): value is Route {
  if (typeof value !== 'object' || value === null) return false;
  const route = value as Record<string, unknown>;
  return (
    typeof route.format === 'string' &&
    Object.hasOwn(wireFormats, route.format) &&
    typeof route.operation === 'string' &&
    (route.model === undefined || typeof route.model === 'string') &&
    (route.stream === undefined || typeof route.stream === 'boolean') &&
    (route.resourceId === undefined || typeof route.resourceId === 'string') &&
    (route.method === undefined || typeof route.method === 'string')
  );
}

function isStringRecord(value: unknown): value is Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (typeof (value as Record<string, unknown>)[key] !== 'string') return false;
  return true;
}
