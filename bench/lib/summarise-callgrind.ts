/**
 * Where a cell's instructions went, by function: callgrind's own per-function counts (from
 * `callgrind_annotate`), with the code V8 compiled named from the process's perf map (Node's
 * `--perf-basic-prof`: functions, and the regular expressions and stubs it compiled too), which
 * valgrind cannot read itself.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

interface MapEntry {
  start: number;
  end: number;
  name: string;
}

/** `/tmp/perf-<pid>.map`: one `<start> <size> <name>` line, in hex, per piece of code V8 made, in the order it made them. */
export function readPerfMap(pid: number): MapEntry[] {
  const file = `/tmp/perf-${pid}.map`;
  if (!existsSync(file)) return [];
  const entries: MapEntry[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
    if (match === null) continue;
    // User-space addresses stay below 2^47: a number holds them exactly.
    const start = Number.parseInt(match[1] as string, 16);
    entries.push({ start, end: start + Number.parseInt(match[2] as string, 16), name: match[3] as string });
  }
  return entries;
}

/**
 * The code at `address`: the latest entry that covers it, since V8 puts new code where
 * collected code was and the map keeps both lines.
 */
function lookUp(map: MapEntry[], address: number): string | undefined {
  for (let index = map.length - 1; index >= 0; index--) {
    const entry = map[index] as MapEntry;
    if (entry.start <= address && address < entry.end) return entry.name;
  }
  return undefined;
}

/** A native function's name as a reader wants it: no argument lists or template arguments, no return type or binary. */
function tidyNative(name: string): string {
  let text = name
    .replace(/^\?\?\?:/, '')
    .replace(/ \[[^\]]*\]$/, '')
    .replace(/ \[clone [^\]]*\]/g, '')
    .replace(/ const$/, '');
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

/** Compiled code's name from the perf map, its path from the package root; a regular expression is named by its whole source, cut short. */
function tidyCompiled(name: string): string {
  const text = name.replace(/(?:file:\/\/)?\/\S*?\/(?=(?:node_modules|libs|services|bench|bin)\/)/, '');
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
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
      const name = address === undefined ? tidyNative(raw) : tidyCompiled(lookUp(map, Number.parseInt(address, 16)) ?? 'code V8 made that the perf map does not name');
      totals.set(name, (totals.get(name) ?? 0) + Number((match[1] as string).replaceAll(',', '')));
    }
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, instructions]) => ({ name, perRequest: instructions / requests }));
}
