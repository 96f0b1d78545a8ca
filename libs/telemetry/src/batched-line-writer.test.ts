import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BatchedLineWriter } from './batched-line-writer.ts';

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function tempFile(): { path: string; fd: number } {
  const directory = mkdtempSync(join(tmpdir(), 'batched-line-writer-'));
  directories.push(directory);
  const path = join(directory, 'out.log');
  return { path, fd: openSync(path, 'w') };
}

const waitFor = async (check: () => boolean, timeoutMs = 5000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('BatchedLineWriter', () => {
  it('writes every line whole and in order, multi-byte and longer-than-a-batch lines included', async () => {
    const { path, fd } = tempFile();
    const writer = new BatchedLineWriter(fd, { minBytes: 4096, flushIntervalMs: 20 });
    const lines: string[] = [];
    for (let index = 0; index < 5000; index++) {
      const body = index % 997 === 0 ? 'x'.repeat(40_000) : index % 7 === 0 ? `héllo ✓ ${'€'.repeat(index % 50)}` : `line ${index}`;
      lines.push(`{"n":${index},"s":"${body}"}\n`);
    }
    for (const [index, line] of lines.entries()) {
      writer.write(line);
      // Some lines arrive while a batch is being written, some after.
      if (index % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const expected = lines.join('');
    await waitFor(() => readFileSync(path, 'utf8').length === expected.length);
    expect(readFileSync(path, 'utf8')).toBe(expected);
    writer.end();
    closeSync(fd);
  });

  it('holds a short line until the flush interval, then writes it', async () => {
    const { path, fd } = tempFile();
    const writer = new BatchedLineWriter(fd, { minBytes: 4096, flushIntervalMs: 200 });
    writer.write('short\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readFileSync(path, 'utf8')).toBe('');
    await waitFor(() => readFileSync(path, 'utf8') === 'short\n');
    writer.end();
    closeSync(fd);
  });

  it('writes what waits synchronously on end', () => {
    const { path, fd } = tempFile();
    const writer = new BatchedLineWriter(fd, { minBytes: 4096, flushIntervalMs: 60_000 });
    writer.write('one\n');
    writer.write('two\n');
    writer.end();
    expect(readFileSync(path, 'utf8')).toBe('one\ntwo\n');
    closeSync(fd);
  });

  it('drops lines past the bound while nobody reads, and says how many once output flows again', async () => {
    const { path } = tempFile();
    // A pipe whose reader starts late: writes fail with EAGAIN once the pipe is full.
    const reader = spawn('sh', ['-c', `sleep 1; cat > '${path}'`], { stdio: ['pipe', 'ignore', 'ignore'] });
    const fd = (reader.stdin as unknown as { _handle: { fd: number } })._handle.fd;
    const writer = new BatchedLineWriter(fd, { minBytes: 4096, flushIntervalMs: 20, maxPendingBytes: 256 * 1024 });
    const line = `${'y'.repeat(99)}\n`;
    const total = 10_000;
    let accepted = 0;
    for (let index = 0; index < total; index++) {
      if (writer.write(line)) accepted++;
      if (index % 1000 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(accepted).toBeLessThan(total);
    // Output flows again: the next line brings the count of the dropped ones with it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    writer.write(line);
    await new Promise((resolve) => setTimeout(resolve, 200));
    writer.end();
    reader.stdin?.end();
    await new Promise((resolve) => reader.once('exit', resolve));
    const written = readFileSync(path, 'utf8').split('\n').filter((entry) => entry !== '');
    const note = written.find((entry) => entry.includes('log lines dropped'));
    expect(note).toBeDefined();
    const dropped = (JSON.parse(note as string) as { dropped: number }).dropped;
    expect(written.filter((entry) => entry === line.trimEnd()).length).toBe(accepted + 1);
    expect(dropped).toBe(total - accepted);
  });
});
