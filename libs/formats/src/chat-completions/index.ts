import { COMMENT_KEEP_ALIVE as KEEP_ALIVE } from '../shared/index.ts';
import type { WireFormat } from '../wire-format.ts';
import {
  embeddingRequestFromCanonical,
  embeddingRequestToCanonical,
  embeddingResponseFromCanonical,
  embeddingResponseToCanonical,
} from './embeddings.ts';
import { generatePath, requestHeaders } from './endpoint.ts';
import { errorFromUpstream, renderError, renderStreamError } from './errors.ts';
import { extractUsage } from './extract-usage.ts';
import { renderModel, renderModelList } from './models.ts';
import { requestFromCanonical, requestToCanonical } from './request.ts';
import { responseFromCanonical, responseToCanonical } from './response.ts';
import { createRelayMonitor } from './relay-monitor.ts';
import { createStreamDecoder } from './stream-decoder.ts';
import { createStreamEncoder } from './stream-encoder.ts';
import { readAnswerSummary } from './read-answer-summary.ts';
import { summarizeResponse } from './summarize-response.ts';

/** OpenAI Chat Completions, both directions through the canonical types (protocols.md §3). */
export const chatCompletions: WireFormat = {
  id: 'chat-completions',
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
  embeddings: {
    toCanonical: embeddingRequestToCanonical,
    fromCanonical: embeddingRequestFromCanonical,
    responseToCanonical: embeddingResponseToCanonical,
    responseFromCanonical: embeddingResponseFromCanonical,
  },
};
