/**
 * Re-renders a results JSON written by bench/run.ts (after a change to the report format):
 *
 *   node bench/report.ts bench/results/<date>/full-<time>.json
 *
 * Writes the .md beside it and prints it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { evaluateGoals, renderMarkdown } from './lib/report.ts';
import type { BenchReport } from './lib/types.ts';

const file = process.argv[2];
if (file === undefined || !file.endsWith('.json')) throw new Error('usage: node bench/report.ts RESULTS.json');
const report = JSON.parse(readFileSync(file, 'utf8'), (_key, value: unknown) => (value === null ? Number.NaN : value)) as BenchReport;
const markdown = renderMarkdown(report);
writeFileSync(file.replace(/\.json$/, '.md'), markdown);
writeFileSync(file, `${JSON.stringify({ ...report, goals: evaluateGoals(report) }, null, 2)}\n`);
process.stdout.write(`${markdown}\n`);
