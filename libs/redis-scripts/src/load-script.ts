import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What ioredis `defineCommand` takes; no `numberOfKeys` when the caller passes it first. */
export interface LoadedScript {
  lua: string;
  numberOfKeys?: number;
  /** The same code as a Redis Function library, for a script whose last line is `return <entry>(KEYS, ARGV)`. */
  library?: ScriptLibrary;
}

/** A script as a Function library (`FUNCTION LOAD`) that registers one function of the same name. */
export interface ScriptLibrary {
  /**
   * `sy_<script>_<hash of its code>`: function names are global to the server, and the replicas of
   * two releases sharing one Redis during a rolling deploy each find their own version.
   */
  name: string;
  code: string;
  /** The SHA1 of the script as plain Lua, which EVALSHA names it by where the server has no Functions. */
  sha: string;
}

/** The script's last line, when it names its entry. */
const ENTRY = /(?<=^|\n)return (\w+)\(KEYS, ARGV\)\n?$/;

/**
 * Reads `<directory>/<fileName>` and inlines its `--- @include "<name>"` lines from
 * `<directory>/includes/` (BullMQ's convention, style-anchors §5). The key count comes from the
 * file name, `<name>-<numberOfKeys>.lua`, so the header and the registration cannot disagree;
 * `<name>-n.lua` takes a variable number of keys, which the caller passes first. A script that
 * ends in `return <entry>(KEYS, ARGV)` can also run as a Function (`bindScript`); its top level
 * then runs once, at load, so it must keep no state of a call there and call no Redis command.
 */
export function loadScript(directory: string, fileName: string): LoadedScript {
  const match = /-(\d+|n)\.lua$/.exec(fileName);
  if (match === null) throw new Error(`${fileName}: script names end in -<numberOfKeys>.lua or -n.lua`);
  const lua = inlineIncludes(directory, readFileSync(join(directory, fileName), 'utf8'));
  const script: LoadedScript = match[1] === 'n' ? { lua } : { lua, numberOfKeys: Number(match[1]) };
  const entry = ENTRY.exec(lua);
  if (entry !== null) {
    const sha = createHash('sha1').update(lua).digest('hex');
    const name = `sy_${fileName.slice(0, match.index).replaceAll('-', '_')}_${sha.slice(0, 12)}`;
    const code = `#!lua name=${name}\n${lua.slice(0, entry.index)}redis.register_function('${name}', ${entry[1] as string})\n`;
    script.library = { name, code, sha };
  }
  return script;
}

export function inlineIncludes(directory: string, source: string): string {
  return source.replace(/^--- @include "([\w-]+)"$/gm, (_line, name: string) => readFileSync(join(directory, 'includes', `${name}.lua`), 'utf8'));
}
