export * from './metrics.ts';
export * from './access-log.ts';
export * from './logger.ts';
export * from './bounded-label.ts';
export * from './ops-routes.ts';
export * from './tracing.ts';
