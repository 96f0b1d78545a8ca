export type * from './route-request.ts';
export * from './route-headers.ts';
export * from './create-http-forwarder.ts';
