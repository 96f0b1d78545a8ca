export type * from './route-request.ts';
export * from './route-headers.ts';
export * from './hop/create-hop-forwarder.ts';
export { closePartialEvent } from './relay-to-client.ts';
export { acceptHops, type AcceptHopsOptions, type HopListener } from './hop/accept-hops.ts';
