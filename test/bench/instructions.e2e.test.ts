// The instruction counter (bench/instructions.ts) on a tiny load: the null proxy and `all` under
// valgrind's callgrind, both counted, and `all`'s instructions named by function. It guards the
// harness against rot (valgrind's control, the dumps, the perf map); the counts themselves are
// judged in docs/performance.md, not here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scratchDirectory } from '../e2e/support/scratch.ts';
import { runBenchScript } from './support/run-bench-script.ts';

const ROUNDS = 2;
const REQUESTS = 100;

interface Report {
  counts: { target: string; scenario: string; instructions: number[]; requests: number[]; functions?: { top: { name: string; perRequest: number }[] }[] }[];
}

describe('bench instruction counter', () => {
  it('should count both targets round by round and name where the instructions went', { timeout: 300_000 }, async () => {
    const out = scratchDirectory('bench-instructions');
    const args = ['--targets', 'null,all', '--scenarios', 'chat', '--requests', String(REQUESTS), '--rounds', String(ROUNDS), '--warmup', '200', '--functions', '--out', out];
    const { code, output } = await runBenchScript('instructions.ts', args);
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
