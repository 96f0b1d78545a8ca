import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis, Result } from 'ioredis';

export type RecordUsageArguments = [
  markerKey: string,
  dayKey: string,
  monthKey: string,
  markerTtlMs: string,
  dayExpiresAt: string,
  monthExpiresAt: string,
  fieldPrefix: string,
  ...increments: string[],
];

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** lua/record-usage-3.lua */
    switchyardRecordUsage(...args: RecordUsageArguments): Result<number, Context>;
  }
}

const LUA_DIRECTORY = join(import.meta.dirname, 'lua');

/** `<name>-<numberOfKeys>.lua`: the key count comes from the file name, so header and registration agree. */
export function loadScript(fileName: string): { lua: string; numberOfKeys: number } {
  const match = /-(\d+)\.lua$/.exec(fileName);
  if (match === null) throw new Error(`${fileName}: script names end in -<numberOfKeys>.lua`);
  return { lua: readFileSync(join(LUA_DIRECTORY, fileName), 'utf8'), numberOfKeys: Number(match[1]) };
}

/** Registers the script; ioredis sends EVALSHA and falls back to EVAL after a restart flushed it. */
export function defineUsageCommands(redis: Redis): void {
  redis.defineCommand('switchyardRecordUsage', loadScript('record-usage-3.lua'));
}
