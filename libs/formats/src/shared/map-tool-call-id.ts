import { createHash } from 'node:crypto';

const SAFE_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Makes a tool-call id acceptable to targets that restrict ids (messages: `^[a-zA-Z0-9_-]+$`;
 * responses: at most 64 chars). The mapping is deterministic, so a call and its result map to
 * the same id on every turn without Switchyard keeping state (protocols.md §10.4).
 */
export function mapToolCallId(id: string, maxLength = 64): string {
  if (SAFE_ID.test(id) && id.length <= maxLength) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 12);
  const cleaned = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `${cleaned.slice(0, maxLength - hash.length - 1)}_${hash}`;
}
