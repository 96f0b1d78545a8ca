import { createHash } from 'node:crypto';

/** The only form in which Switchyard keeps an API key. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}
