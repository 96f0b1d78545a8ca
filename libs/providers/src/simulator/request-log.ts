import type { IncomingHttpHeaders } from 'node:http';

export interface LoggedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, or the raw text when it was not JSON, or null when empty. */
  body: unknown;
}

const CAPACITY = 200;
const SECRET_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key'];
const REDACTED = '<redacted>';

/** Credentials are recorded as present, never echoed (tests read this log over HTTP). */
export function redactHeaders(headers: IncomingHttpHeaders): Record<string, string | string[] | undefined> {
  const copy: Record<string, string | string[] | undefined> = { ...headers };
  for (const name of SECRET_HEADERS) if (copy[name] !== undefined) copy[name] = REDACTED;
  return copy;
}

/** `?key=` is a credential too (protocols.md §1.2). */
export function redactPath(path: string): string {
  return path.includes('key=') ? path.replace(/([?&]key=)[^&]*/g, `$1${REDACTED}`) : path;
}

export interface RequestLog {
  add(entry: LoggedRequest): void;
  /** Oldest first. */
  list(): LoggedRequest[];
  clear(): void;
}

/** The last 200 requests, in a ring so a long benchmark never grows memory. */
export function createRequestLog(capacity = CAPACITY): RequestLog {
  let entries: LoggedRequest[] = [];
  let next = 0;
  return {
    add(entry) {
      if (entries.length < capacity) entries.push(entry);
      else entries[next] = entry;
      next = (next + 1) % capacity;
    },
    list() {
      return entries.length < capacity ? [...entries] : [...entries.slice(next), ...entries.slice(0, next)];
    },
    clear() {
      entries = [];
      next = 0;
    },
  };
}
