/**
 * Preloaded into the Portkey process only (`node --import bench/lib/portkey-compat.ts …`).
 *
 * Portkey 1.15.2 relays streams as `new Response(readable, upstreamFetchResponse)` and then
 * appends its own headers. With the @hono/node-server its `^1.3.3` range resolves to today
 * (1.19.x), the lightweight global Response keeps the upstream's *immutable* Headers when
 * given a native Response as init, so every streamed answer fails with
 * `TypeError: immutable` ("Something went wrong"). This shim copies such an init into a plain
 * `{ status, statusText, headers }` first. It changes no behaviour or cost beyond one Headers
 * copy per response; without it Portkey cannot stream at all on Node 24 (nor 20).
 */
const defineProperty = Object.defineProperty;
const NativeResponse = globalThis.Response;
Object.defineProperty = function patched<T>(target: T, key: PropertyKey, descriptor: PropertyDescriptor & ThisType<unknown>): T {
  if (target === (globalThis as unknown) && key === 'Response' && typeof descriptor.value === 'function' && descriptor.value !== NativeResponse) {
    const LightResponse = descriptor.value as typeof Response;
    class CompatResponse extends LightResponse {
      constructor(body?: ConstructorParameters<typeof Response>[0], init?: ResponseInit | Response) {
        if (init instanceof NativeResponse && !(init instanceof LightResponse)) {
          const native: Response = init;
          init = { status: native.status, statusText: native.statusText, headers: new Headers(native.headers) };
        }
        super(body, init as ResponseInit | undefined);
      }
    }
    descriptor = { ...descriptor, value: CompatResponse };
  }
  return defineProperty(target, key, descriptor) as T;
} as typeof Object.defineProperty;

/**
 * Portkey listens on every interface and has no host flag; the bench keeps everything on
 * loopback, so when PORTKEY_BENCH_HOST is set a listen without a host binds there instead.
 */
const { Server } = await import('node:net');
const bindHost = process.env.PORTKEY_BENCH_HOST;
if (bindHost !== undefined && bindHost !== '') {
  const listen = Server.prototype.listen;
  Server.prototype.listen = function patchedListen(this: InstanceType<typeof Server>, ...args: unknown[]) {
    if (typeof args[0] === 'number' && (args[1] === undefined || typeof args[1] === 'function')) {
      const callback = typeof args[1] === 'function' ? args[1] : args[2];
      return (listen as (...rest: unknown[]) => InstanceType<typeof Server>).call(this, args[0], bindHost, callback);
    }
    return (listen as (...rest: unknown[]) => InstanceType<typeof Server>).apply(this, args);
  } as typeof listen;
}
