import type { ServerResponse } from 'node:http';

/**
 * Wait `milliseconds`, cut short when the client goes away (or the server closes and destroys
 * the socket), so no timer outlives its connection. Resolves whether the response is still open.
 */
export function pauseResponse(response: ServerResponse, milliseconds: number): Promise<boolean> {
  if (response.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      response.off('close', onClose);
      resolve(!response.destroyed);
    }, milliseconds);
    response.once('close', onClose);
  });
}
