import type { Logger } from '@switchyard/telemetry';

/** The part of the pino logger the catalog uses. */
export type CatalogLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

export const silentLogger: CatalogLogger = { info: () => {}, warn: () => {}, error: () => {} };
