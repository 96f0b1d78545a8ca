import type { CanonicalMessage, CanonicalResponse, ContentPart, ReasoningPart } from '@switchyard/canonical';
import type { CallSignatures, SignatureStore } from '../responses-store/index.ts';

/**
 * The signatures an answer's tool calls carry, by call id: the signed reasoning before the
 * first call of the turn, and each call's own signature. Nothing when nothing is signed.
 */
export function collectCallSignatures(answer: CanonicalResponse): Map<string, CallSignatures> {
  const found = new Map<string, CallSignatures>();
  let reasoning: ReasoningPart[] = [];
  for (const part of answer.content) {
    if (part.type === 'reasoning' && (part.signature !== undefined || part.redactedData !== undefined)) reasoning.push(part);
    if (part.type !== 'tool-call') continue;
    if (reasoning.length > 0 || part.signature !== undefined) {
      found.set(part.id, { reasoning, ...(part.signature === undefined ? {} : { signature: part.signature }) });
    }
    // Reasoning belongs before the first call of the turn only.
    reasoning = [];
  }
  return found;
}

/**
 * Puts stored signatures back into assistant turns that lost them (a client of another
 * format sent the history). Encoders keep only their own vendor's, so this is safe whatever
 * the upstream. Returns the messages unchanged when there is nothing to restore.
 */
export async function restoreCallSignatures(
  store: SignatureStore,
  tenantId: string,
  messages: CanonicalMessage[],
  bare: string[] = unsignedCallIds(messages),
): Promise<CanonicalMessage[]> {
  if (bare.length === 0) return messages;
  const stored = await store.load(tenantId, bare);
  if (stored.size === 0) return messages;
  return messages.map((message) => (message.role === 'assistant' ? restoreTurn(message, stored) : message));
}

/**
 * Ids of the tool calls in assistant turns with nothing signed: those a signature could be
 * missing from. Checked for every request before the store is asked, so most (no tool calls)
 * cost one pass over the messages and no await.
 */
export function unsignedCallIds(messages: CanonicalMessage[]): string[] {
  const ids: string[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || message.content.some(isSigned)) continue;
    for (const part of message.content) if (part.type === 'tool-call' && part.signature === undefined) ids.push(part.id);
  }
  return ids;
}

/** Restored reasoning leads the turn (messages requires thinking blocks first); call signatures go back on their calls. */
function restoreTurn(message: CanonicalMessage, stored: Map<string, CallSignatures>): CanonicalMessage {
  const reasoning: ContentPart[] = [];
  const content = message.content.map((part) => {
    const entry = part.type === 'tool-call' ? stored.get(part.id) : undefined;
    if (entry === undefined || part.type !== 'tool-call') return part;
    reasoning.push(...entry.reasoning);
    return entry.signature === undefined ? part : { ...part, signature: entry.signature };
  });
  return reasoning.length === 0 && content.every((part, index) => part === message.content[index]) ? message : { ...message, content: [...reasoning, ...content] };
}

function isSigned(part: ContentPart): boolean {
  return (part.type === 'reasoning' && (part.signature !== undefined || part.redactedData !== undefined)) || (part.type === 'tool-call' && part.signature !== undefined);
}
