import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../../bin/switchyard.js', import.meta.url));

export interface SwitchyardProcess {
  url: string;
  port: number;
  /** Everything the process wrote to stdout and stderr so far (for secret-leak checks). */
  output(): string;
  /**
   * Resolves whether `text` appeared in the output within `timeoutMs`. Logs are written
   * asynchronously: a line can arrive after the answer of the request that caused it.
   */
  waitForOutput(text: string, timeoutMs?: number): Promise<boolean>;
  /** SIGTERM and wait for exit; resolves the exit code. */
  stop(): Promise<number | null>;
  kill(): void;
  child: ChildProcess;
}

/** Starts `switchyard <target>` as a real process and waits until `/readyz` answers 200. */
export async function startSwitchyard(
  target: string,
  options: { port: number; config?: string; env?: Record<string, string>; readyPath?: string },
): Promise<SwitchyardProcess> {
  const args = [BIN, target, '--port', String(options.port), '--host', '127.0.0.1'];
  if (options.config !== undefined) args.push('--config', options.config);
  const child = spawn(process.execPath, args, {
    // Tests read logs while the process runs: lines wait at most 50 ms in pino's batch, not 1 s.
    env: { ...process.env, LOG_LEVEL: 'info', SWITCHYARD_LOG_FLUSH_MS: '50', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${options.port}`;
  await waitUntilReady(`${url}${options.readyPath ?? '/readyz'}`, child, () => output);
  return {
    url,
    port: options.port,
    output: () => output,
    async waitForOutput(text, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!output.includes(text) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      return output.includes(text);
    },
    child,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}

async function waitUntilReady(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${url} not ready within 30 s:\n${output()}`);
}
