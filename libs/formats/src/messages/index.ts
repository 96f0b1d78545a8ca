import type { WireFormat } from '../wire-format.ts';
import { countTokensToCanonical, renderCountTokens } from './count-tokens.ts';
import { generatePath, requestHeaders } from './endpoint.ts';
import { errorFromUpstream, renderError, renderStreamError } from './errors.ts';
import { extractUsage } from './extract-usage.ts';
import { readAnswerSummary } from './read-answer-summary.ts';
import { renderModel, renderModelList } from './models.ts';
import { requestFromCanonical, requestToCanonical } from './request.ts';
import { responseFromCanonical, responseToCanonical } from './response.ts';
import { createRelayMonitor } from './relay-monitor.ts';
import { createStreamDecoder } from './stream-decoder.ts';
import { createStreamEncoder } from './stream-encoder.ts';
import { summarizeResponse } from './summarize-response.ts';

/** Vendor A's Messages API, both directions through the canonical types (protocols.md §5). */
/**
 * Messages clients reset their idle watchdogs only on real events, so quiet streams get the
 * vendor's own `ping` (protocols.md §2), written only while the upstream is alive.
 */
const KEEP_ALIVE = 'event: ping\ndata: {"type": "ping"}\n\n';

export const messages: WireFormat = {
  id: 'messages',
  request: { toCanonical: requestToCanonical, fromCanonical: requestFromCanonical },
  response: { toCanonical: responseToCanonical, fromCanonical: responseFromCanonical, summarize: summarizeResponse, readSummary: readAnswerSummary },
  stream: {
    createDecoder: createStreamDecoder,
    createRelayMonitor,
    createEncoder: createStreamEncoder,
    extractUsage,
    keepAlive: KEEP_ALIVE,
  },
  errors: { render: renderError, renderStreamError, fromUpstream: errorFromUpstream },
  models: { renderList: renderModelList, renderOne: renderModel },
  upstream: { generatePath, requestHeaders },
  countTokens: { toCanonical: countTokensToCanonical, render: renderCountTokens },
};
