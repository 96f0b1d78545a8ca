// The instruction counter (bench/instructions.ts) on a tiny load: the null proxy and `all` under
// valgrind's callgrind, both counted, and `all`'s instructions named by function. It guards the
// harness against rot (valgrind's control, the dumps, the perf map); the counts themselves are
// judged in docs/performance.md, not here.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDirectory } from '../e2e/support/scratch.ts';

const SCRIPT = join(import.meta.dirname, '../../bench/instructions.ts');
const ROUNDS = 2;
const REQUESTS = 100;

interface Report {
  counts: { target: string; scenario: string; instructions: number[]; requests: number[]; functions?: { top: { name: string; perRequest: number }[] }[] }[];
}

function count(out: string): Promise<{ code: number | null; output: string }> {
  const args = [SCRIPT, '--targets', 'null,all', '--scenarios', 'chat', '--requests', String(REQUESTS), '--rounds', String(ROUNDS), '--warmup', '200', '--functions', '--out', out];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('bench instruction counter', () => {
  it('should count both targets round by round and name where the instructions went', { timeout: 300_000 }, async () => {
    const out = scratchDirectory('bench-instructions');
    const { code, output } = await count(out);
    expect(code, output.slice(-4000)).toBe(0);

    const files = readdirSync(out);
    const json = files.find((file) => /^instructions-\d+\.json$/.test(file));
    expect(json, files.join(', ')).toBeDefined();
    const report = JSON.parse(readFileSync(join(out, json as string), 'utf8')) as Report;
    expect(report.counts.map((cell) => `${cell.target} ${cell.scenario}`)).toEqual(['null chat', 'all chat']);
    for (const cell of report.counts) {
      expect(cell.requests).toEqual(Array.from({ length: ROUNDS }, () => REQUESTS));
      // A request through Node's HTTP stack is hundreds of thousands of instructions, not none
      // and not the whole process's start-up.
      for (const [round, instructions] of cell.instructions.entries()) {
        expect(instructions / REQUESTS, `${cell.target} round ${round + 1}`).toBeGreaterThan(20_000);
        expect(instructions / REQUESTS, `${cell.target} round ${round + 1}`).toBeLessThan(20_000_000);
      }
    }

    // V8's compiled code is named from the perf map: the gateway's own request handling shows up.
    const all = report.counts.find((cell) => cell.target === 'all');
    const names = all?.functions?.flatMap((process) => process.top.map((entry) => entry.name)) ?? [];
    expect(names.length).toBeGreaterThan(10);
    expect(names.some((name) => name.startsWith('JS:'))).toBe(true);
    expect(readFileSync(join(out, (json as string).replace('.json', '-functions.md')), 'utf8')).toContain('## switchyard all (in-memory), chat');
  });
});
