import { AsyncLocalStorage } from 'node:async_hooks';

const collecting = new AsyncLocalStorage<string[]>();
let installed = false;

/**
 * Wraps the global fetch so that `collectRequestIds` sees the `x-request-id` of every response
 * fetched inside it — by the official SDKs too, which expose no common way to read headers.
 * Call it before creating SDK clients: the openai and anthropic SDKs take the global fetch
 * when they are constructed (@google/genai reads it on each call).
 */
export function installRequestIdRecorder(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const response = await original(input, init);
    const id = response.headers.get('x-request-id');
    if (id !== null) collecting.getStore()?.push(id);
    return response;
  };
}

/** Runs `body`; `ids` receives the `x-request-id` of each response fetched within it, in order. */
export function collectRequestIds<T>(ids: string[], body: () => Promise<T>): Promise<T> {
  if (!installed) throw new Error('installRequestIdRecorder() was not called');
  return collecting.run(ids, body);
}
