import type { CanonicalUsage } from './usage.ts';

/** An embeddings call in one shape for OpenAI `/v1/embeddings` and generate-content `:embedContent`. */
export interface CanonicalEmbeddingRequest {
  model: string;
  /** One entry per vector wanted. Token-array inputs are kept as numbers for same-format upstreams. */
  inputs: Array<string | number[]>;
  dimensions?: number;
  /** generate-content `taskType` / `title`. */
  taskType?: string;
  title?: string;
  /** generate-content `:batchEmbedContents` (answer with `embeddings[]`, not `embedding`). */
  batch?: boolean;
  /** chat-completions clients: how vectors go back on the wire (openai-node asks for base64 by default). */
  encodingFormat?: 'float' | 'base64';
  user?: string;
}

export interface CanonicalEmbeddingResponse {
  model: string;
  vectors: number[][];
  usage: CanonicalUsage;
}
