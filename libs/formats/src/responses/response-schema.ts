import { z } from 'zod';

/**
 * A limited schema of an upstream's response object (protocols.md §4.2): only what Switchyard
 * reads, everything nullish, unknown output item types accepted and skipped, so a vendor
 * adding fields never breaks decoding.
 */

const textEntry = z.looseObject({ text: z.string() });

const messageOutput = z.looseObject({
  type: z.literal('message'),
  content: z.array(
    z.discriminatedUnion('type', [
      z.looseObject({ type: z.literal('output_text'), text: z.string() }),
      z.looseObject({ type: z.literal('refusal'), refusal: z.string() }),
    ]),
  ),
});
const functionCallOutput = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string(),
  name: z.string(),
  arguments: z.string(),
});
const reasoningOutput = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(textEntry).nullish(),
  content: z.array(textEntry).nullish(),
  encrypted_content: z.string().nullish(),
});

const KNOWN_OUTPUT_TYPES: ReadonlySet<string> = new Set(['message', 'function_call', 'reasoning']);
/** Hosted-tool items (web_search_call, …): no canonical meaning; skipped. */
const otherOutput = z.looseObject({
  type: z.string().refine((type) => !KNOWN_OUTPUT_TYPES.has(type), { abort: true }),
});

const knownOutput = z.discriminatedUnion('type', [messageOutput, functionCallOutput, reasoningOutput]);
const outputItem = z.union([knownOutput, otherOutput]);

export const responseSchema = z.looseObject({
  id: z.string(),
  created_at: z.number().nullish(),
  model: z.string().nullish(),
  status: z.string().nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
  output: z.array(outputItem).nullish(),
  usage: z.unknown(),
});

export type UpstreamResponse = z.infer<typeof responseSchema>;
export type UpstreamOutputItem = z.infer<typeof outputItem>;
export type KnownOutputItem = z.infer<typeof knownOutput>;

export function isKnownOutputItem(item: UpstreamOutputItem): item is KnownOutputItem {
  return KNOWN_OUTPUT_TYPES.has(item.type);
}
