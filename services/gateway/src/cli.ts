import { ConfigError } from '@switchyard/config';
import { parseArguments, USAGE, UsageError } from './parse-arguments.ts';
import { startTarget } from './start-targets.ts';

/** How long SIGTERM waits for in-flight requests and streams before exiting anyway. */
const GRACE_MS = Number(process.env.SWITCHYARD_SHUTDOWN_GRACE_MS ?? 25_000);

export async function main(argv: string[]): Promise<void> {
  let options;
  try {
    options = parseArguments(argv, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    throw error;
  }
  let running;
  try {
    running = await startTarget(options, process.env);
  } catch (error) {
    // A bad config is refused at start with the paths of the bad fields (design §7).
    process.stderr.write(`switchyard ${options.target}: ${error instanceof ConfigError ? error.message : (error as Error).message}\n`);
    process.exit(1);
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.drain();
    process.stderr.write(`switchyard ${options.target}: ${signal}, draining (up to ${GRACE_MS} ms)\n`);
    const deadline = setTimeout(() => {
      // Streams still open now end with their format's error event, then the process goes.
      running.terminate();
      setTimeout(() => process.exit(0), 200).unref();
    }, GRACE_MS);
    deadline.unref();
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGHUP', () => running.reload?.());
  process.on('SIGINT', () => stop('SIGINT'));
}
