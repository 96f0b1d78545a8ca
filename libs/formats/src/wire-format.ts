import type {
  CanonicalEmbeddingRequest,
  CanonicalUsage,
  CanonicalEmbeddingResponse,
  CanonicalRequest,
  CanonicalResponse,
  FormatId,
  GatewayError,
  ModelInfo,
  StreamPart,
} from '@switchyard/canonical';
import type { SseEvent } from '@switchyard/sse';

/** What the client-side decode knows beyond the body. */
export interface RequestContext {
  /** Model from the URL (generate-content); overrides any body field. */
  model?: string;
  /** Streaming chosen by the URL (generate-content `:streamGenerateContent`). */
  stream?: boolean;
  /** The URL method for generate-content (`embedContent` vs `batchEmbedContents`). */
  operation?: string;
}

/** What an upstream request is built for. */
export interface UpstreamTarget {
  /** The deployment's upstream model id. */
  model: string;
  /** The catalog's output limit for the model: used where the format requires max tokens (messages). */
  maxOutputTokens?: number;
}

export interface EncodedRequest {
  body: Record<string, unknown>;
  /** Settings the target format cannot express and that were dropped (sent to the client as a warning header). */
  warnings: string[];
}

/** What the client-side encode knows beyond the canonical value. */
export interface ResponseContext {
  /** The model name the client asked for (answers echo it back). */
  model: string;
  /** Switchyard's request id; used to derive ids the format needs. */
  requestId: string;
  /** chat-completions: the client asked for the usage chunk. */
  includeUsage?: boolean;
  /**
   * The client asked to see reasoning text: chat-completions gets the non-standard
   * `reasoning_content` (opt-in, protocols.md §3.5), generate-content gets thought parts
   * (`includeThoughts`). Signatures needed for the next turn are kept either way.
   */
  includeReasoning?: boolean;
}

/** What the router needs of a same-format answer it relays untouched: read, not decoded. */
export interface ResponseSummary {
  usage: CanonicalUsage;
  /** The model the upstream says answered, when the format names it. */
  model: string | undefined;
}

export interface StreamDecoder {
  /** One upstream SSE event in, zero or more canonical parts out. */
  push(event: SseEvent): StreamPart[];
  /** The upstream closed. Yields `finish` where EOF is the format's normal end, else an `error` part for a truncated stream. */
  end(): StreamPart[];
}

/**
 * Watches a same-format stream relayed untouched: what the router needs, without decoding
 * content. It agrees with the format's StreamDecoder on every stream whose content events are
 * well-formed; a content event the decoder would reject as malformed (not JSON, wrong shape) is
 * relayed as is and not noticed, since noticing it would mean parsing it.
 */
export interface RelayMonitor {
  /** One upstream event. Content deltas cost string checks only; JSON is parsed only for events that may carry usage, the finish or an error. */
  push(event: SseEvent): void;
  /** The upstream closed. The error the decoder's end() would report for a truncated stream, else undefined. */
  end(): GatewayError | undefined;
  /**
   * The leading run of whole events in `text` (upstream text that starts on an event boundary)
   * that push() would skip unread and a same-format relay passes on unchanged: their end and
   * count. The caller relays that run as it came and pushes only the rest. Nothing (0, 0) while
   * the monitor needs every event read; absent where a format always does.
   */
  skippablePrefix?(text: string): SkippedEvents;
  /**
   * Usage as the decoder's `finish` part would carry it, once known; undefined while unknown or
   * when the upstream sent none (where the decoder's finish carries its estimated zero). Before
   * `finished` it is what the decoder holds so far (e.g. messages' input counts from
   * message_start), final only from `finished` on.
   */
  readonly usage: CanonicalUsage | undefined;
  /** True from the event on which the decoder would have emitted `finish` (for formats that end at EOF: from end()). */
  readonly finished: boolean;
  /** The error of the `error` part the decoder's push would have emitted (an in-band error event, an unreadable event); nothing is read after it. */
  readonly error: GatewayError | undefined;
}

export interface SkippedEvents {
  /** Where the run ends: just after its last event's blank line. */
  end: number;
  events: number;
}

export interface StreamEncoder {
  /** One canonical part in, the SSE text to write out ('' when nothing is due yet). */
  push(part: StreamPart): string;
}

export interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** One HTTP call to an upstream of this format. */
export interface UpstreamCall {
  /** Path (and query) to append to the provider's base URL. */
  path: string;
}

/**
 * A wire format, both directions (design §3). The client side uses request.toCanonical,
 * response.fromCanonical and stream.createEncoder; the provider side uses request.fromCanonical,
 * response.toCanonical and stream.createDecoder.
 */
export interface WireFormat {
  id: FormatId;
  request: {
    /** Validates (zod, loose) and decodes a client body. Throws GatewayError('invalid_request', …, {param}). */
    toCanonical(body: unknown, context: RequestContext): CanonicalRequest;
    fromCanonical(request: CanonicalRequest, target: UpstreamTarget): EncodedRequest;
  };
  response: {
    toCanonical(body: unknown): CanonicalResponse;
    fromCanonical(response: CanonicalResponse, context: ResponseContext): unknown;
    /**
     * Usage and model of a parsed answer without decoding its content (same-format fast path);
     * undefined when the answer carries no usage, so the caller decodes it and estimates.
     */
    summarize(body: unknown): ResponseSummary | undefined;
    /**
     * The same summary read from the answer's text without parsing it, where the format knows
     * the layout its vendor writes; undefined whenever unsure, and the caller parses and
     * summarises instead.
     */
    readSummary?(text: string): ResponseSummary | undefined;
  };
  stream: {
    createDecoder(): StreamDecoder;
    /** The cheap watcher for a same-format stream relayed untouched (instead of the decoder). */
    createRelayMonitor(): RelayMonitor;
    createEncoder(context: ResponseContext): StreamEncoder;
    /**
     * What to write during a quiet stream so clients and proxies keep the connection: an SSE
     * comment, or the vendor's own ping event where clients only reset idle timers on events.
     */
    keepAlive: string;
    /** Reads usage from one event of this format's stream without decoding the rest (same-format fast path). */
    extractUsage(event: SseEvent): Partial<CanonicalUsage> | undefined;
  };
  errors: {
    render(error: GatewayError, requestId: string): RenderedError;
    /** The error event that ends a stream after its first byte (protocols.md §7.3). */
    renderStreamError(error: GatewayError, requestId: string): string;
    /** Turns an upstream's error answer (status + parsed body, or text) into a GatewayError. */
    fromUpstream(status: number, body: unknown): GatewayError;
  };
  models: {
    /** The model list in this format; `query` carries pagination parameters. */
    renderList(models: ModelInfo[], query: Record<string, string | undefined>): unknown;
    renderOne(model: ModelInfo): unknown;
  };
  upstream: {
    /** Path for a generate call, relative to the provider base URL as the vendor SDK takes it. */
    generatePath(model: string, stream: boolean): string;
    /** Headers every call to this format's upstream carries: credentials (when there is a key) and version headers, real vendor names. */
    requestHeaders(apiKey: string | undefined): Record<string, string>;
  };
  /** Present on formats with a token-count endpoint (messages, generate-content). */
  countTokens?: {
    toCanonical(body: unknown, context: RequestContext): CanonicalRequest;
    render(inputTokens: number): unknown;
  };
  /** Present on formats with an embeddings endpoint (chat-completions, generate-content). */
  embeddings?: {
    toCanonical(body: unknown, context: RequestContext): CanonicalEmbeddingRequest;
    fromCanonical(request: CanonicalEmbeddingRequest, target: UpstreamTarget): { path: string; body: Record<string, unknown> };
    responseToCanonical(body: unknown, request: CanonicalEmbeddingRequest): CanonicalEmbeddingResponse;
    responseFromCanonical(response: CanonicalEmbeddingResponse, request: CanonicalEmbeddingRequest): unknown;
  };
}
