/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by function, self time by
 * package (node_modules package, workspace package, node internals), and inclusive time of the
 * heaviest functions. Usable alone:
 *
 *   node bench/lib/summarise-profile.ts FILE.cpuprofile [top]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  busyMs: number;
  selfByFunction: { name: string; where: string; ms: number; share: number }[];
  selfByPackage: { name: string; ms: number; share: number }[];
  inclusive: { name: string; where: string; ms: number; share: number }[];
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A frame's file and line; a target runs from a stripped copy of the tree (image-tree.ts), so paths are shown relative to either. */
export function where(frame: { url: string; lineNumber: number }): string {
  const url = frame.url.replace('file://', '').replace(ROOT, '').replace(/^\/tmp\/switchyard-bench-image-[^/]+\//, '');
  return url === '' ? '' : `${url}:${frame.lineNumber + 1}`;
}

/** node_modules/<pkg>, libs/<x>, services/<x>, node:internal, or the V8 pseudo-frames. */
export function packageOf(url: string): string {
  const path = url.replace('file://', '');
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (modules !== null) return modules[1] ?? path;
  const workspace = /\/(libs|services|bench)\/([^/]+)\//.exec(path);
  if (workspace !== null) return `@switchyard/${workspace[2]}${workspace[1] === 'bench' ? ' (bench)' : ''}`;
  if (path.startsWith('node:')) return 'node (internals)';
  if (path === '') return '(native / V8)';
  return path;
}

export function summariseProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index] as number;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  }
  let total = 0;
  let idle = 0;
  const byFunction = new Map<string, { name: string; where: string; ms: number }>();
  const byPackage = new Map<string, number>();
  const inclusive = new Map<string, { name: string; where: string; ms: number }>();
  for (const [id, ms] of self) {
    const node = byId.get(id);
    if (node === undefined) continue;
    total += ms;
    const name = node.callFrame.functionName || '(anonymous)';
    if (name === '(idle)') {
      idle += ms;
      continue;
    }
    const location = where(node.callFrame);
    const key = `${name}@${location}`;
    const entry = byFunction.get(key) ?? { name, where: location, ms: 0 };
    entry.ms += ms;
    byFunction.set(key, entry);
    const pkg = name === '(garbage collector)' ? '(garbage collector)' : packageOf(node.callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + ms);
    // Inclusive: every distinct function on the stack gets this sample once.
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = byId.get(cursor)?.callFrame;
      if (frame === undefined || frame.functionName === '(root)') continue;
      const frameKey = `${frame.functionName || '(anonymous)'}@${where(frame)}`;
      if (seen.has(frameKey)) continue;
      seen.add(frameKey);
      const inc = inclusive.get(frameKey) ?? { name: frame.functionName || '(anonymous)', where: where(frame), ms: 0 };
      inc.ms += ms;
      inclusive.set(frameKey, inc);
    }
  }
  const busy = total - idle;
  const share = (ms: number) => (busy > 0 ? ms / busy : 0);
  return {
    totalMs: total,
    idleMs: idle,
    busyMs: busy,
    selfByFunction: [...byFunction.values()].sort((a, b) => b.ms - a.ms).slice(0, top).map((entry) => ({ ...entry, share: share(entry.ms) })),
    selfByPackage: [...byPackage].map(([name, ms]) => ({ name, ms, share: share(ms) })).sort((a, b) => b.ms - a.ms),
    inclusive: [...inclusive.values()]
      .filter((entry) => entry.where !== '' && !entry.where.startsWith('node:'))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((entry) => ({ ...entry, share: share(entry.ms) })),
  };
}

export function renderProfile(title: string, summary: ProfileSummary): string {
  const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
  const lines = [
    `### ${title}`,
    '',
    `Sampled ${(summary.totalMs / 1000).toFixed(1)} s, busy ${(summary.busyMs / 1000).toFixed(1)} s (shares below are of busy time).`,
    '',
    '| self time by package | ms | share |',
    '|---|---:|---:|',
    ...summary.selfByPackage.slice(0, 15).map((entry) => `| ${entry.name} | ${entry.ms.toFixed(0)} | ${pct(entry.share)} |`),
    '',
    '| top self time: function | where | ms | share |',
    '|---|---|---:|---:|',
    ...summary.selfByFunction.map((entry) => `| \`${entry.name}\` | ${entry.where} | ${entry.ms.toFixed(0)} | ${pct(entry.share)} |`),
    '',
    '| top inclusive time (JS frames): function | where | ms | share |',
    '|---|---|---:|---:|',
    ...summary.inclusive.map((entry) => `| \`${entry.name}\` | ${entry.where} | ${entry.ms.toFixed(0)} | ${pct(entry.share)} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  if (file === undefined) throw new Error('usage: summarise-profile.ts FILE.cpuprofile [top]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  process.stdout.write(renderProfile(file, summariseProfile(profile, Number(process.argv[3] ?? 25))));
}
