import type { VendorFormat } from './render-vendor-error.ts';

/** messages `count_tokens` → `{input_tokens}`; Gemini `:countTokens` → `{totalTokens, …}` (§9). */
export function renderTokenCount(format: VendorFormat, tokens: number): string {
  if (format === 'messages') return JSON.stringify({ input_tokens: tokens });
  return JSON.stringify({ totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] });
}
