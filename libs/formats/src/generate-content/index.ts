import { COMMENT_KEEP_ALIVE as KEEP_ALIVE } from '../shared/index.ts';
import type { WireFormat } from '../wire-format.ts';
import { countTokensToCanonical, renderCountTokens } from './count-tokens.ts';
import {
  embeddingsFromCanonical,
  embeddingsResponseFromCanonical,
  embeddingsResponseToCanonical,
  embeddingsToCanonical,
} from './embeddings.ts';
import { generatePath, requestHeaders } from './endpoint.ts';
import { errorFromUpstream, renderError, renderStreamError } from './errors.ts';
import { renderModel, renderModelList } from './models.ts';
import { requestFromCanonical, requestToCanonical } from './request.ts';
import { responseFromCanonical, responseToCanonical } from './response.ts';
import { createRelayMonitor } from './relay-monitor.ts';
import { createStreamDecoder } from './stream-decoder.ts';
import { createStreamEncoder } from './stream-encoder.ts';
import { extractStreamUsage } from './extract-stream-usage.ts';
import { summarizeResponse } from './summarize-response.ts';

/** generate-content (vendor B, Gemini `generateContent`), both directions (protocols.md §6). */
export const generateContent: WireFormat = {
  id: 'generate-content',
  request: { toCanonical: requestToCanonical, fromCanonical: requestFromCanonical },
  response: { toCanonical: responseToCanonical, fromCanonical: responseFromCanonical, summarize: summarizeResponse },
  stream: {
    createDecoder: createStreamDecoder,
    createRelayMonitor,
    createEncoder: createStreamEncoder,
    extractUsage: extractStreamUsage,
    keepAlive: KEEP_ALIVE,
  },
  errors: { render: renderError, renderStreamError, fromUpstream: errorFromUpstream },
  models: { renderList: renderModelList, renderOne: renderModel },
  upstream: { generatePath, requestHeaders },
  countTokens: { toCanonical: countTokensToCanonical, render: renderCountTokens },
  embeddings: {
    toCanonical: embeddingsToCanonical,
    fromCanonical: embeddingsFromCanonical,
    responseToCanonical: embeddingsResponseToCanonical,
    responseFromCanonical: embeddingsResponseFromCanonical,
  },
};
