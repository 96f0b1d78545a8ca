export { DEFAULT_DRAIN_BOUNDS, drainUnreadBody, type DrainBounds } from './drain-unread-body.ts';
export { HeldItems } from './held-items.ts';
