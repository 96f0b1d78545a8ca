// The benchmark's smoke run, as users and the performance issue run it: every target (the
// simulator direct, the null proxy, Switchyard all / all + Redis / split, Portkey) and every
// scenario for a second each, plus the slow-stream hold. It guards the harness, which nothing
// else runs, against rot: a target that no longer starts, a scenario that errors, a report that
// no longer renders. Timing is not judged here (bench/ holds the timing goals). It starts two
// processes of each target (a full run starts three), so that several instances are started,
// checked, read and stopped, for about 8 s more than one; with one run, only the first is loaded.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../bench/lib/report.ts';
import type { BenchReport } from '../../bench/lib/types.ts';
import { scratchDirectory } from '../e2e/support/scratch.ts';
import { runBenchScript } from './support/run-bench-script.ts';

const SWITCHYARD_TARGETS = ['all', 'all-redis', 'split'];
const INSTANCES = 2;

interface Report {
  mode: string;
  settings: { instances: number; targets: string[]; scenarios: string[]; streams: number; streamTargets: string[] };
  cells: { target: string; scenario: string; rps: number; errors: number; cpuPer1k: number; loneP50Ms: number; cpuPer1kByRole?: Record<string, number> }[];
  streams: { target: string; streams: number; completed: number; failed: number; stalled: number }[];
  targets: { target: string; rssIdleMb: number; rssAfterMb: number; rssAfterByRoleMb?: Record<string, number>; rssAfterByInstanceMb?: number[] }[];
  failures: string[];
  goals: { goal: string; value: string; met?: boolean }[];
}

describe('bench smoke run', () => {
  it('should measure every target and scenario without an error and write both reports', { timeout: 300_000 }, async () => {
    const out = scratchDirectory('bench-smoke');
    const { code, output } = await runBenchScript('run.ts', ['--smoke', '--instances', String(INSTANCES), '--out', out]);
    expect(code, output.slice(-4000)).toBe(0);

    const files = readdirSync(out);
    const json = files.find((file) => file.startsWith('smoke-') && file.endsWith('.json'));
    const markdown = files.find((file) => file.startsWith('smoke-') && file.endsWith('.md'));
    expect(json).toBeDefined();
    expect(markdown).toBeDefined();
    const report = JSON.parse(readFileSync(join(out, json as string), 'utf8')) as Report;
    expect(report.mode).toBe('smoke');
    expect(report.settings.instances).toBe(INSTANCES);
    expect(report.failures).toEqual([]);

    const cell = (target: string, scenario: string) => report.cells.find((c) => c.target === target && c.scenario === scenario);
    for (const scenario of report.settings.scenarios) {
      // The floor and Switchyard serve every scenario; the null proxy and Portkey only some.
      for (const target of ['direct', ...SWITCHYARD_TARGETS]) {
        expect(cell(target, scenario), `${target} ${scenario}`).toBeDefined();
      }
    }
    for (const target of report.settings.targets) expect(cell(target, 'chat'), `${target} chat`).toBeDefined();
    for (const measured of report.cells) {
      const name = `${measured.target} ${measured.scenario}`;
      expect(measured.errors, name).toBe(0);
      expect(measured.rps, name).toBeGreaterThan(0);
      expect(measured.cpuPer1k, name).toBeGreaterThan(0);
      expect(measured.loneP50Ms, name).toBeGreaterThan(0);
    }

    expect(report.streams.map((hold) => hold.target).sort()).toEqual([...report.settings.streamTargets].sort());
    for (const hold of report.streams) {
      expect({ target: hold.target, completed: hold.completed, failed: hold.failed, stalled: hold.stalled }).toEqual({
        target: hold.target,
        completed: report.settings.streams,
        failed: 0,
        stalled: 0,
      });
    }
    for (const target of report.targets) expect(target.rssAfterMb, target.target).toBeGreaterThan(0);
    // Every instance's memory is read, and the one with the largest process is reported: for a
    // one-process target, the one that held the most.
    for (const target of report.targets.filter((t) => SWITCHYARD_TARGETS.includes(t.target))) {
      const byInstance = target.rssAfterByInstanceMb ?? [];
      expect(byInstance, target.target).toHaveLength(INSTANCES);
      expect(byInstance, target.target).toContain(target.rssAfterMb);
      if (target.rssAfterByRoleMb === undefined) expect(target.rssAfterMb, target.target).toBe(Math.max(...byInstance));
    }
    // Split's memory is also read per process; the goal is judged on its largest one.
    const split = report.targets.find((target) => target.target === 'split');
    const splitRss = split?.rssAfterByRoleMb ?? {};
    expect(Object.keys(splitRss).sort()).toEqual(['catalog', 'ingress', 'router']);
    expect(Object.values(splitRss).reduce((total, value) => total + value, 0)).toBeCloseTo(split?.rssAfterMb ?? Number.NaN, 6);
    expect(report.goals.find((goal) => goal.goal === 'RSS ≤ 120 MB after runs (split, each process)')?.value).toContain(`MB summed)`);

    // Split's CPU is also recorded per process, and the parts make up the whole (one run each,
    // so the median of each part is that run's figure).
    const splitChat = cell('split', 'chat');
    expect(Object.keys(splitChat?.cpuPer1kByRole ?? {}).sort()).toEqual(['catalog', 'ingress', 'router']);
    const { catalog = Number.NaN, router = Number.NaN, ingress = Number.NaN } = splitChat?.cpuPer1kByRole ?? {};
    expect(catalog + router + ingress).toBeCloseTo(splitChat?.cpuPer1k ?? Number.NaN, 9);
    expect(router).toBeGreaterThan(0);
    expect(ingress).toBeGreaterThan(0);
    expect(cell('all', 'chat')?.cpuPer1kByRole).toEqual({});

    // Every goal of the issue is evaluated from this run's figures, met or not (a figure that
    // could not be computed leaves it undecided). One second of load decides nothing about
    // the goals themselves: a ratio may even come out negative.
    expect(report.goals.length).toBeGreaterThan(10);
    for (const goal of report.goals) expect(typeof goal.met, `${goal.goal}: ${goal.value}`).toBe('boolean');
    const rendered = readFileSync(join(out, markdown as string), 'utf8');
    expect(rendered).toContain('## Targets from the issue');
    expect(rendered).toMatch(/^\| chat \| \d+\.\d{3} \| \d+\.\d{3} \| \d+\.\d{3} \|/m);

    // One run has no spread between runs to show; two runs of the floor 50% apart mark the host loud.
    expect(rendered).not.toContain('Host steadiness');
    const full = JSON.parse(readFileSync(join(out, json as string), 'utf8')) as BenchReport;
    const floor = full.cells.find((c) => c.target === 'direct' && c.scenario === 'chat');
    const [run] = floor?.raw ?? [];
    expect(run?.cpuPer1k).toBeGreaterThan(0);
    floor?.raw.push({ ...run, cpuPer1k: (run?.cpuPer1k ?? Number.NaN) * 1.5 });
    expect(renderMarkdown(full)).toMatch(/^Host steadiness: .* \(chat, its widest\), 50% apart — \*\*a loud host\*\*/m);
  });
});
