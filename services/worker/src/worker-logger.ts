/** The part of a pino logger the worker uses; tests pass a recorder. */
export interface WorkerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}
