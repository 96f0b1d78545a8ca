/**
 * Where a cell's instructions went, by function: callgrind's own per-function counts (from
 * `callgrind_annotate`), with the code V8 compiled named from the process's perf map (Node's
 * `--perf-basic-prof`: functions, and the regular expressions and stubs it compiled too), which
 * valgrind cannot read itself.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

interface MapEntry {
  start: bigint;
  end: bigint;
  name: string;
}

/** `/tmp/perf-<pid>.map`: one `<start> <size> <name>` line, in hex, per function V8 compiled. */
export function readPerfMap(pid: number): MapEntry[] {
  const file = `/tmp/perf-${pid}.map`;
  if (!existsSync(file)) return [];
  const entries: MapEntry[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (match === null) continue;
    const start = BigInt(`0x${match[1]}`);
    entries.push({ start, end: start + BigInt(`0x${match[2]}`), name: match[3] as string });
  }
  // A later line for the same address is code compiled there after the first was collected.
  return entries.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
}

function lookUp(map: MapEntry[], address: bigint): string | undefined {
  let low = 0;
  let high = map.length - 1;
  let found: MapEntry | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const entry = map[middle] as MapEntry;
    if (entry.start <= address) {
      found = entry;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found !== undefined && address < found.end ? found.name : undefined;
}

/** A function's name as a reader wants it: no argument lists or template arguments, no binary, paths from the package root. */
function tidy(name: string): string {
  let text = name
    .replace(/^\?\?\?:/, '')
    .replace(/ \[[^\]]*\]$/, '')
    .replace(/ \[clone [^\]]*\]/g, '')
    .replace(/ const$/, '');
  if (text.startsWith('JS:')) return text.replace(/(?:file:\/\/)?\/\S*?\/(?=(?:node_modules|libs|services|bench|bin)\/)/, '');
  // C++: drop what is between the outermost brackets, then the return type.
  for (const [open, close] of [['(', ')'], ['<', '>']] as const) {
    let depth = 0;
    let kept = '';
    for (const character of text) {
      if (character === open) depth++;
      if (depth === 0) kept += character;
      if (character === close) depth--;
    }
    text = kept;
  }
  return text.replace(/^.* (?=\S+$)/, '');
}

/** Instructions per request by function over `files` (dumps of one process), the `top` largest. */
export function instructionsByFunction(files: string[], map: MapEntry[], requests: number, top = 30): { name: string; perRequest: number }[] {
  const totals = new Map<string, number>();
  for (const file of files) {
    const annotated = spawnSync('callgrind_annotate', ['--threshold=100', '--inclusive=no', file], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
    if (annotated.status !== 0) throw new Error(`callgrind_annotate ${file}: ${annotated.stderr}`);
    for (const line of annotated.stdout.split('\n')) {
      const match = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*)$/.exec(line);
      if (match === null || match[2] === 'PROGRAM TOTALS') continue;
      const raw = match[2] as string;
      const address = /^\?\?\?:(0x[0-9a-f]+) \[\?\?\?\]$/.exec(raw)?.[1];
      const found = address === undefined ? tidy(raw) : tidy(lookUp(map, BigInt(address)) ?? 'code V8 made that the perf map does not name');
      // A regular expression is named by its whole source.
      const name = found.length > 160 ? `${found.slice(0, 159)}…` : found;
      totals.set(name, (totals.get(name) ?? 0) + Number((match[1] as string).replaceAll(',', '')));
    }
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, instructions]) => ({ name, perRequest: instructions / requests }));
}
