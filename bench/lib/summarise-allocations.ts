/**
 * Summarises a sampling heap profile written by allocation-sampler.ts: bytes allocated per
 * request, by package and by function (the function on top of the stack when the object was
 * made; an inlined callee counts as itself). Usable alone:
 *
 *   node bench/lib/summarise-allocations.ts FILE.heapprofile REQUESTS [top]
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packageOf, where } from './summarise-profile.ts';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}
export interface HeapProfile {
  head: HeapNode;
}

export interface AllocationSummary {
  bytesPerRequest: number;
  byPackage: { name: string; bytes: number }[];
  byFunction: { name: string; where: string; bytes: number }[];
}

export function summariseAllocations(profile: HeapProfile, requests: number, top = 30): AllocationSummary {
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, { name: string; where: string; bytes: number }>();
  let total = 0;
  const pending: HeapNode[] = [profile.head];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    pending.push(...node.children);
    if (node.selfSize === 0) continue;
    total += node.selfSize;
    const name = node.callFrame.functionName || '(anonymous)';
    const pkg = packageOf(node.callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + node.selfSize);
    const location = where(node.callFrame);
    const key = `${name}@${location}`;
    const entry = byFunction.get(key) ?? { name, where: location, bytes: 0 };
    entry.bytes += node.selfSize;
    byFunction.set(key, entry);
  }
  const perRequest = (bytes: number) => bytes / requests;
  return {
    bytesPerRequest: perRequest(total),
    byPackage: [...byPackage].map(([name, bytes]) => ({ name, bytes: perRequest(bytes) })).sort((a, b) => b.bytes - a.bytes),
    byFunction: [...byFunction.values()]
      .map((entry) => ({ ...entry, bytes: perRequest(entry.bytes) }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, top),
  };
}

/** How a profile is described, by what its sampler kept (allocation-sampler.ts). */
const KEPT = {
  all: { verb: 'allocated', scope: 'objects the collector freed included' },
  promoted: { verb: 'promoted', scope: 'objects that outlived a young collection, freed later by a full one or not' },
} as const;

export function renderAllocations(title: string, summary: AllocationSummary, kept: keyof typeof KEPT = 'all'): string {
  const share = (bytes: number) => `${((bytes / summary.bytesPerRequest) * 100).toFixed(1)}%`;
  const { verb, scope } = KEPT[kept];
  return [
    `### ${title}`,
    '',
    `${verb[0]?.toUpperCase()}${verb.slice(1)} per request: ${(summary.bytesPerRequest / 1024).toFixed(1)} KB (sampled every 4 KB, ${scope}).`,
    '',
    `| ${verb} by package | bytes / request | share |`,
    '|---|---:|---:|',
    ...summary.byPackage.slice(0, 15).map((entry) => `| ${entry.name} | ${entry.bytes.toFixed(0)} | ${share(entry.bytes)} |`),
    '',
    `| ${verb} by function | where | bytes / request | share |`,
    '|---|---|---:|---:|',
    ...summary.byFunction.map((entry) => `| \`${entry.name}\` | ${entry.where} | ${entry.bytes.toFixed(0)} | ${share(entry.bytes)} |`),
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, requests, top] = process.argv.slice(2);
  if (file === undefined || requests === undefined) throw new Error('usage: summarise-allocations.ts FILE.heapprofile REQUESTS [top]');
  const profile = JSON.parse(readFileSync(file, 'utf8')) as HeapProfile;
  process.stdout.write(renderAllocations(file, summariseAllocations(profile, Number(requests), Number(top ?? 30))));
}
