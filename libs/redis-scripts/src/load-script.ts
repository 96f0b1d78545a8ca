import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What ioredis `defineCommand` takes; no `numberOfKeys` when the caller passes it first. */
export interface LoadedScript {
  lua: string;
  numberOfKeys?: number;
}

/**
 * Reads `<directory>/<fileName>` and inlines its `--- @include "<name>"` lines from
 * `<directory>/includes/` (BullMQ's convention, style-anchors §5). The key count comes from the
 * file name, `<name>-<numberOfKeys>.lua`, so the header and the registration cannot disagree;
 * `<name>-n.lua` takes a variable number of keys, which the caller passes first.
 */
export function loadScript(directory: string, fileName: string): LoadedScript {
  const match = /-(\d+|n)\.lua$/.exec(fileName);
  if (match === null) throw new Error(`${fileName}: script names end in -<numberOfKeys>.lua or -n.lua`);
  const lua = inlineIncludes(directory, readFileSync(join(directory, fileName), 'utf8'));
  return match[1] === 'n' ? { lua } : { lua, numberOfKeys: Number(match[1]) };
}

export function inlineIncludes(directory: string, source: string): string {
  return source.replace(/^--- @include "([\w-]+)"$/gm, (_line, name: string) => readFileSync(join(directory, 'includes', `${name}.lua`), 'utf8'));
}
