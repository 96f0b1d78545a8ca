import { SWITCHYARD_MALLOC, TARGET_TITLES, type TargetId } from './targets.ts';
import type { BenchReport, Cell } from './types.ts';
import { SCENARIOS } from './scenarios.ts';
import { medianRssMb } from './util.ts';

const f = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? a / b : Number.NaN);
const x = (value: number) => (Number.isFinite(value) ? `${value.toFixed(2)}×` : '–');

/** ` (min–max)` of a figure over a cell's runs, so a reader sees how far this machine moved it. */
function spread(raw: Record<string, number>[], key: string): string {
  const values = raw.map((run) => run[key] ?? Number.NaN).filter(Number.isFinite);
  return values.length < 2 ? '' : ` (${f(Math.min(...values), 3)}–${f(Math.max(...values), 3)})`;
}

export function findCell(report: BenchReport, target: TargetId, scenario: string): Cell | undefined {
  return report.cells.find((cell) => cell.target === target && cell.scenario === scenario);
}

export interface Goal {
  goal: string;
  value: string;
  met: boolean | undefined;
}

/** The issue's targets, judged from this run alone (ratios within the same run). */
export function evaluateGoals(report: BenchReport): Goal[] {
  const goals: Goal[] = [];
  const cell = (target: TargetId, scenario: string) => findCell(report, target, scenario);
  const add = (goal: string, value: number, passes: (value: number) => boolean, show: (value: number) => string) =>
    goals.push({ goal, value: show(value), met: Number.isFinite(value) ? passes(value) : undefined });
  // Each throughput target twice: measured req/s, and capacity from CPU cost (1 / CPU s per
  // request), which holds up better when the load core, not the target, is the bottleneck.
  const capacity = (target: TargetId, scenario: string) => {
    const cost = cell(target, scenario)?.cpuPer1k;
    return cost === undefined || !(cost > 0) ? undefined : 1 / cost;
  };
  for (const scenario of ['chat', 'chat-stream']) {
    const label = `${scenario === 'chat' ? 'non-streaming' : 'streaming'} c=${String(report.settings.connections)}`;
    add(`${label}: all ≥ 4× Portkey (req/s)`, ratio(cell('all', scenario)?.rps, cell('portkey', scenario)?.rps), (v) => v >= 4, x);
    add(`${label}: all ≥ 4× Portkey (CPU cost per request)`, ratio(capacity('all', scenario), capacity('portkey', scenario)), (v) => v >= 4, x);
    add(`${label}: all ≥ 75% of null proxy (req/s)`, ratio(cell('all', scenario)?.rps, cell('null', scenario)?.rps), (v) => v >= 0.75, pct);
    add(`${label}: all ≥ 75% of null proxy (CPU cost per request)`, ratio(capacity('all', scenario), capacity('null', scenario)), (v) => v >= 0.75, pct);
  }
  add('lone request added p50 ≤ 0.3 ms (all, chat)', (cell('all', 'chat')?.loneP50Ms ?? Number.NaN) - (cell('direct', 'chat')?.loneP50Ms ?? Number.NaN), (v) => v <= 0.3, ms);
  add('stream TTFB added p50 ≤ 0.5 ms (all, chat-stream)', (cell('all', 'chat-stream')?.ttfbP50Ms ?? Number.NaN) - (cell('direct', 'chat-stream')?.ttfbP50Ms ?? Number.NaN), (v) => v <= 0.5, ms);
  for (const scenario of ['chat>messages-stream', 'messages>chat-stream']) {
    add(`translated ${scenario} ≥ 70% of same-format stream (all, req/s)`, ratio(cell('all', scenario)?.rps, cell('all', 'chat-stream')?.rps), (v) => v >= 0.7, pct);
    add(`translated ${scenario} ≥ 70% of same-format stream (all, CPU cost)`, ratio(capacity('all', scenario), capacity('all', 'chat-stream')), (v) => v >= 0.7, pct);
  }
  for (const scenario of ['chat', 'chat-stream']) {
    add(`split ≥ 60% of all (${scenario}, req/s)`, ratio(cell('split', scenario)?.rps, cell('all', scenario)?.rps), (v) => v >= 0.6, pct);
    add(`split ≥ 60% of all (${scenario}, CPU cost)`, ratio(capacity('split', scenario), capacity('all', scenario)), (v) => v >= 0.6, pct);
    add(`Redis limits cost ≤ 15% (${scenario}, req/s)`, 1 - ratio(cell('all-redis', scenario)?.rps, cell('all', scenario)?.rps), (v) => v <= 0.15, pct);
    add(`Redis limits cost ≤ 15% (${scenario}, CPU cost)`, 1 - ratio(capacity('all-redis', scenario), capacity('all', scenario)), (v) => v <= 0.15, pct);
  }
  // A soak's memory is its growth; the figure after it is read before any idle trim.
  // Per process: a Kubernetes memory limit is set per container, and a sum over split's three
  // processes counts the Node binary's shared pages three times (three idle bare Node 24
  // processes already sum to ≈ 130 MB; docs/performance.md, "Split's memory, per process").
  for (const summary of report.mode === 'soak' ? [] : report.targets.filter((t) => ['all', 'all-redis', 'split'].includes(t.target))) {
    const byRole = summary.rssAfterByRoleMb;
    if (byRole === undefined) {
      add(`RSS ≤ 120 MB after runs (${summary.target})`, summary.rssAfterMb, (v) => v <= 120, (v) => `${f(v, 0)} MB`);
    } else {
      const [role, largest] = Object.entries(byRole).reduce((top, entry) => (entry[1] > top[1] ? entry : top));
      add(`RSS ≤ 120 MB after runs (${summary.target}, each process)`, largest, (v) => v <= 120, (v) => `${f(v, 0)} MB (${role}, the largest; ${f(summary.rssAfterMb, 0)} MB summed)`);
    }
  }
  for (const hold of report.streams.filter((h) => ['all', 'split'].includes(h.target))) {
    const errors = hold.failed + hold.stalled;
    goals.push({ goal: `${hold.streams} slow streams: zero errors (${hold.target})`, value: `${errors} errors, ${hold.maxOpen} open at once`, met: errors === 0 });
    if (errors > 0) {
      // Streams queued behind a connection cap hold memory too: the per-stream figure would be wrong.
      goals.push({ goal: `≤ 64 KB RSS per open stream (${hold.target})`, value: `not measurable: ${errors} streams never started`, met: undefined });
    } else if (!(hold.perStreamKb > 0)) {
      // The process gave back more heap than the streams took: its idle figure was not idle.
      goals.push({ goal: `≤ 64 KB RSS per open stream (${hold.target})`, value: `not measurable: RSS fell while streams were held`, met: undefined });
    } else {
      add(`≤ 64 KB RSS per open stream (${hold.target})`, hold.perStreamKb, (v) => v <= 64, (v) => `${f(v, 1)} KB`);
    }
  }
  if (report.soak !== undefined) add('soak RSS growth ≤ 5%', report.soak.growth, (v) => v <= 0.05, pct);
  return goals;
}

function pct(value: number): string {
  // `+ 0` turns the -0 of a rounded small fall into 0.
  return Number.isFinite(value) ? `${Math.round(value * 100) + 0}%` : '–';
}
function ms(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(3)} ms` : '–';
}

/** One line per scenario: Switchyard `all` against the others, by req/s and by CPU cost per request. */
export function renderSummary(report: BenchReport): string {
  const lines = [
    '| scenario | all req/s | all ÷ direct | all ÷ null proxy (req/s · CPU) | all ÷ Portkey (req/s · CPU) | split ÷ all (req/s · CPU) | all+Redis ÷ all (req/s · CPU) | all CPU ms/req | lone added p50 ms | TTFB added p50 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const both = (a: Cell | undefined, b: Cell | undefined) =>
    a === undefined || b === undefined ? '–' : `${x(ratio(a.rps, b.rps))} · ${x(ratio(b.cpuPer1k, a.cpuPer1k))}`;
  for (const scenario of SCENARIOS) {
    const all = findCell(report, 'all', scenario.id);
    if (all === undefined) continue;
    const direct = findCell(report, 'direct', scenario.id);
    lines.push(
      `| ${scenario.id} | ${f(all.rps, 0)} | ${x(ratio(all.rps, direct?.rps))} | ${both(all, findCell(report, 'null', scenario.id))} | ${both(all, findCell(report, 'portkey', scenario.id))} | ${both(findCell(report, 'split', scenario.id), all)} | ${both(findCell(report, 'all-redis', scenario.id), all)} | ${f(all.cpuPer1k, 3)} | ${direct === undefined ? '–' : f(all.loneP50Ms - direct.loneP50Ms, 3)} | ${scenario.stream && direct !== undefined ? f(all.ttfbP50Ms - direct.ttfbP50Ms, 3) : '–'} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Split's CPU per request by process beside `all` and the null proxy. Split costs `all`'s work
 * plus the hop, and the hop is mostly the ingress: a proxy (the request read and written twice)
 * with authentication and admission. So split ÷ all by CPU is all ÷ (ingress + router +
 * catalog), and the ingress against the null proxy shows how much of the hop is Node's floor.
 */
export function renderSplitByProcess(report: BenchReport): string | undefined {
  const rows: string[] = [];
  for (const scenario of SCENARIOS) {
    const roles = findCell(report, 'split', scenario.id)?.cpuPer1kByRole;
    if (roles === undefined || Object.keys(roles).length === 0) continue;
    const all = findCell(report, 'all', scenario.id)?.cpuPer1k;
    const nul = findCell(report, 'null', scenario.id)?.cpuPer1k;
    const ingress = roles.ingress ?? Number.NaN;
    const router = roles.router ?? Number.NaN;
    rows.push(
      `| ${scenario.id} | ${f(ingress, 3)} | ${f(router, 3)} | ${f(roles.catalog ?? Number.NaN, 3)} | ${f(all ?? Number.NaN, 3)} | ${f(nul ?? Number.NaN, 3)} | ${x(ratio(ingress, nul))} | ${x(ratio(router, all))} |`,
    );
  }
  if (rows.length === 0) return undefined;
  return [
    '| scenario | split: ingress | router | catalog | all | null proxy | ingress ÷ null proxy | router ÷ all |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

/** Past this spread between runs a host is loud: no target's ratio in the run is worth comparing with another run's. */
const LOUD_HOST_SPREAD = 1.2;

/**
 * The widest spread, between runs, of the simulator called directly's CPU per request: its code
 * is the same in every run, so how far it moves is the host's doing (other tenants, frequency
 * scaling), not any target's. Undefined with fewer than two runs.
 */
export function hostSpread(report: BenchReport): { scenario: string; min: number; max: number } | undefined {
  let widest: { scenario: string; min: number; max: number } | undefined;
  for (const cell of report.cells) {
    if (cell.target !== 'direct') continue;
    const values = cell.raw.map((run) => run.cpuPer1k ?? Number.NaN).filter((value) => Number.isFinite(value) && value > 0);
    if (values.length < 2) continue;
    const min = Math.min(...values);
    const max = Math.max(...values);
    if (widest === undefined || max / min > widest.max / widest.min) widest = { scenario: cell.scenario, min, max };
  }
  return widest;
}

function renderHostSpread(report: BenchReport): string[] {
  const widest = hostSpread(report);
  if (widest === undefined) return [];
  const loud = widest.max / widest.min > LOUD_HOST_SPREAD;
  return [
    `Host steadiness: the simulator called directly cost ${f(widest.min, 3)}–${f(widest.max, 3)} CPU s per 1k requests between runs (${widest.scenario}, its widest), ${pct(widest.max / widest.min - 1)} apart${loud ? ' — **a loud host**: every figure of this run moved with it, so compare its ratios with other runs only with care' : ''}.`,
  ];
}

/** How many processes each target ran as, and so what its figures are medians over (absent in older results). */
function renderInstances(report: BenchReport): string[] {
  const count = report.settings.instances;
  if (typeof count !== 'number') return [];
  if (count === 1) return ["Each target ran as one process: its figures carry that process's bias (two processes of the same code differ by about ±5%)."];
  return [
    `Each target ran as ${count} processes started side by side, its runs spread over them (run r on process r mod ${count}), so a cell's medians are across processes. RSS idle is their median; RSS after all runs is the instance with the largest process (for one-process targets, the one that held the most; every instance's sum is in the JSON, \`rssAfterByInstanceMb\`).`,
  ];
}

export function renderMarkdown(report: BenchReport): string {
  const lines: string[] = [];
  const m = report.machine;
  lines.push(`# Switchyard benchmark — ${report.mode} — ${m.date}`, '');
  lines.push(
    `Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memoryGb} GB, ${m.kernel}; Node ${m.node}; commit ${m.gitCommit}${m.uncommittedGatewayFiles > 0 ? ` plus ${m.uncommittedGatewayFiles} uncommitted gateway files` : ''}.`,
    `Packages: ${Object.entries(m.packages).map(([name, version]) => `${name} ${version}`).join(', ')}.`,
    `Tools: ${Object.entries(m.tools).map(([name, version]) => `${name}: ${version}`).join('; ')}.`,
    `Load average (1/5/15 min) at start ${m.loadAverageStart.join(' / ')}, at end ${(m.loadAverageEnd ?? []).join(' / ')} — other work shared this machine.`,
    ...renderHostSpread(report),
    `Settings: ${Object.entries(report.settings).map(([name, value]) => `${name}=${JSON.stringify(value)}`).join(', ')}.`,
    '',
  );
  lines.push(
    'Ratios are within this run. "added" = target minus simulator direct for the same scenario (lone request, one keep-alive connection).',
    ...renderInstances(report),
    `Switchyard processes (and the simulator) run as the image runs them: types stripped at build time by scripts/strip-types.mjs, with the image's NODE_OPTIONS; Switchyard's malloc: ${SWITCHYARD_MALLOC}. The null proxy, the stack floor and Portkey run with Node's defaults.`,
    '"CPU-cost capacity" compares CPU seconds per request of the target processes (the inverse is the rate one fully busy core would sustain); "CPU util" below 0.9 means the target was not the bottleneck (the load core or other work on the machine was), so its req/s understates it.',
    '',
    '## Summary: switchyard all against the others',
    '',
    renderSummary(report),
    '',
  );
  const split = renderSplitByProcess(report);
  if (split !== undefined) {
    lines.push('## Split: CPU seconds per 1k requests, by process', '', split, '');
  }
  for (const scenario of SCENARIOS) {
    const cells = report.cells.filter((cell) => cell.scenario === scenario.id);
    if (cells.length === 0) continue;
    const direct = findCell(report, 'direct', scenario.id);
    const nul = findCell(report, 'null', scenario.id);
    const portkey = findCell(report, 'portkey', scenario.id);
    lines.push(`## ${scenario.id}: ${scenario.title}`, '');
    lines.push(
      `| target | req/s | ×direct | ×null | ×Portkey | CPU-cost capacity ×null / ×Portkey | p50 / p99 @c${String(report.settings.connections)} ms | lone p50 / p99 ms (added) | ${scenario.stream ? 'TTFB p50 ms (added)' : '—'} | CPU s / 1k req (runs' range) | CPU util | RSS load MB | errors |`,
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const cell of cells) {
      const added = (value: number, base: number | undefined) =>
        cell.target === 'direct' || base === undefined ? f(value, 3) : `${f(value, 3)} (+${f(value - base, 3)})`;
      lines.push(
        `| ${TARGET_TITLES[cell.target]} | ${f(cell.rps, 0)} | ${x(ratio(cell.rps, direct?.rps))} | ${x(ratio(cell.rps, nul?.rps))} | ${x(ratio(cell.rps, portkey?.rps))} | ${x(ratio(nul?.cpuPer1k, cell.cpuPer1k))} / ${x(ratio(portkey?.cpuPer1k, cell.cpuPer1k))} | ${f(cell.p50Ms)} / ${f(cell.p99Ms)} | ${added(cell.loneP50Ms, direct?.loneP50Ms)} / ${added(cell.loneP99Ms, direct?.loneP99Ms)} | ${scenario.stream ? added(cell.ttfbP50Ms, direct?.ttfbP50Ms) : ''} | ${f(cell.cpuPer1k, 3)}${spread(cell.raw, 'cpuPer1k')} | ${f(cell.cpuUtil)} | ${f(cell.rssLoadMb, 0)} | ${cell.errors} |`,
      );
    }
    lines.push('');
  }
  if (report.streams.length > 0) {
    lines.push(`## Slow streams (one event a second, held ${report.streams[0]?.holdSeconds ?? '?'} s)`, '');
    lines.push('| target | streams | completed | failed | stalled (no first event in time) | max open at once | RSS idle → plateau MB | RSS per open stream KB | CPU s |', '|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const hold of report.streams) {
      lines.push(
        `| ${TARGET_TITLES[hold.target]} | ${hold.streams} | ${hold.completed} | ${hold.failed} | ${hold.stalled} | ${hold.maxOpen} | ${f(hold.rssIdleMb, 0)} → ${f(hold.rssPlateauMb, 0)} | ${f(hold.perStreamKb, 1)} | ${f(hold.cpuSeconds, 1)} |`,
      );
    }
    lines.push('');
  }
  lines.push(
    '## Memory per target',
    '',
    typeof report.settings.rssAfterIdleTrimMs === 'number'
      ? `After all runs: read once every Switchyard target had been idle for its idle trim (SWITCHYARD_IDLE_TRIM_AFTER_MS, ${report.settings.rssAfterIdleTrimMs / 1000} s) after its last load, and had logged it (up to a minute more); a process read before its trim is named.`
      : 'After all runs: read 3 s (smoke: 0.3 s) after them, or after the slow streams where there were some; an idle trim may or may not have run by then.',
    '',
    '| target | RSS idle MB | RSS after all runs MB |',
    '|---|---:|---:|',
  );
  for (const summary of report.targets) {
    const byRole = summary.rssAfterByRoleMb === undefined ? '' : ` (${Object.entries(summary.rssAfterByRoleMb).map(([role, value]) => `${role} ${f(value, 0)}`).join(' · ')})`;
    const late = summary.readBeforeTrim === undefined ? '' : `; read before its idle trim: ${summary.readBeforeTrim.join(', ')}`;
    lines.push(`| ${TARGET_TITLES[summary.target]} | ${f(summary.rssIdleMb, 0)} | ${f(summary.rssAfterMb, 0)}${byRole}${late} |${summary.startError === undefined ? '' : ` start failed: ${summary.startError}`}`);
  }
  lines.push('');
  if (report.soak !== undefined) {
    const soak = report.soak;
    lines.push(
      '## Soak',
      '',
      `${TARGET_TITLES[soak.target]}, ${soak.seconds} s at ${Object.entries(soak.rates).map(([name, rate]) => `${name} ${f(rate, 0)} req/s`).join(' + ')} (${report.settings.soakRates === undefined ? 'half of the measured peak, split between the two' : 'rates set by --soak-rates'}): ${soak.requests} requests, ${soak.errors} errors; RSS ${f(soak.rssFirstMb, 1)} MB (minute 2) → ${f(soak.rssLastMb, 1)} MB (last minute): growth ${pct(soak.growth)}. Over the second half (its middle minute → the last), which a leak keeps raising and a one-time step in the first minutes does not: ${pct(soak.rssLastMb / medianRssMb(soak.samples, soak.seconds / 2 - 60, soak.seconds / 2) - 1)}.`,
      '',
    );
  }
  // Targets this run has no data for (e.g. a soak or a partial run) are left out.
  const goals = evaluateGoals(report).filter((goal) => goal.met !== undefined || goal.value !== '–');
  if (goals.length > 0) {
    lines.push('## Targets from the issue', '', '| target | this run | met |', '|---|---:|:---:|');
    for (const goal of goals) lines.push(`| ${goal.goal} | ${goal.value} | ${goal.met === undefined ? 'n/a' : goal.met ? 'yes' : '**no**'} |`);
    lines.push('');
  }
  if (report.failures.length > 0) {
    lines.push('## Failures', '', ...report.failures.map((failure) => `- ${failure}`), '');
  }
  return lines.join('\n');
}
