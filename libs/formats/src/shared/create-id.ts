import { randomBytes } from 'node:crypto';

/**
 * Vendor-looking ids (`chatcmpl-…`, `msg_…`, `call_…`) for things Switchyard has to name itself.
 * 24 hex chars of randomness: unique enough across a fleet, short enough for every id limit.
 */
export function createId(prefix: string): string {
  return prefix + randomBytes(12).toString('hex');
}
