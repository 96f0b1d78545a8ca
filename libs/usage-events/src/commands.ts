import { loadScript } from '@switchyard/redis-scripts';
import type { Redis, Result } from 'ioredis';
import { join } from 'node:path';
import type { RecordPlan } from './record-plan.ts';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** lua/record-usage-n.lua: the number of keys, the keys, the marker TTL, each event's arguments. */
    switchyardRecordUsage(numberOfKeys: number, ...keysAndArguments: string[]): Result<number[], Context>;
  }
}

const LUA_DIRECTORY = join(import.meta.dirname, 'lua');

/** Registers the script; ioredis sends EVALSHA and falls back to EVAL after a restart flushed it. */
export function defineUsageCommands(redis: Redis): void {
  redis.defineCommand('switchyardRecordUsage', loadScript(LUA_DIRECTORY, 'record-usage-n.lua'));
}

/** Records the planned events of one tenant in one script call; true for each counted now. */
export async function recordPlans(redis: Redis, markerTtlMs: number, plans: readonly RecordPlan[]): Promise<boolean[]> {
  const keys: string[] = [];
  const args: string[] = [String(markerTtlMs)];
  for (const plan of plans) {
    keys.push(plan.markerKey, plan.dayKey, plan.monthKey);
    args.push(String(plan.dayExpiresAt), String(plan.monthExpiresAt), plan.fieldPrefix, String(plan.increments.length));
    for (const [field, amount] of plan.increments) args.push(field, String(amount));
  }
  const counted = await redis.switchyardRecordUsage(keys.length, ...keys, ...args);
  return counted.map((value) => value === 1);
}
