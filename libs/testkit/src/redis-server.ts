/** A Redis server owned by a test: started by `startRedis`, stopped by the test. */
export interface RedisServer {
  /** `redis://127.0.0.1:<port>`; unchanged across `restart()`. */
  readonly url: string;
  /** Graceful shutdown, final. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL, for outage tests: clients see connections reset, nothing is flushed. */
  kill(): Promise<void>;
  /** Starts the server again on the same port, after `kill()` or while running, with an empty dataset. */
  restart(): Promise<void>;
}
