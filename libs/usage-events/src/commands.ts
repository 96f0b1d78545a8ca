import { bindScript, loadScript, type RunScript } from '@switchyard/redis-scripts';
import type { Redis } from 'ioredis';
import { join } from 'node:path';
import { requestMarkerKey } from './keys.ts';
import { planPeriods, type UsageRetention } from './record-plan.ts';
import type { UsageEvent } from './usage-event.ts';
import { utcDay } from './usage-periods.ts';
import { METRIC_FIELDS, totalsOf, type UsageMetric } from './usage-totals.ts';

const LUA_DIRECTORY = join(import.meta.dirname, 'lua');

/**
 * lua/record-usage-n.lua on one connection (as a Function where Redis has them, see bindScript):
 * the number of keys, then the keys and the arguments encodeRecordBatch lays out, as one array.
 * It replies one character per event, '1' for counted now.
 */
export type RecordUsage = RunScript<string>;

export function bindRecordUsage(redis: Redis): RecordUsage {
  return bindScript<string>(redis, loadScript(LUA_DIRECTORY, 'record-usage-n.lua'));
}

/** Records a batch of one tenant's events in one script call; true for each counted now. */
export async function recordEvents(recordUsage: RecordUsage, retention: UsageRetention, events: readonly UsageEvent[]): Promise<boolean[]> {
  const { numberOfKeys, keysAndArguments } = encodeRecordBatch(retention, events);
  const counted = await recordUsage(numberOfKeys, keysAndArguments);
  if (counted.length !== events.length) throw new Error(`a batch of ${events.length} events answered ${counted.length} results`);
  const outcomes = new Array<boolean>(counted.length);
  for (let index = 0; index < counted.length; index++) outcomes[index] = counted[index] === '1';
  return outcomes;
}

const METRICS = Object.keys(METRIC_FIELDS) as UsageMetric[];
/** The script's metric count and field names, the same in every call. */
const METRIC_HEADER = [String(METRICS.length), ...METRICS.map((metric) => METRIC_FIELDS[metric])];

/**
 * The keys and arguments of lua/record-usage-n.lua for a batch of one tenant's events. The
 * events of a batch nearly all share their day, month, API key and model, so those go once per
 * group, and each event sends its marker, its group and its amounts in the metrics' order: about
 * half the strings of sending every event whole, and building and writing those strings was most
 * of what recording cost the worker (docs/performance.md).
 */
export function encodeRecordBatch(retention: UsageRetention, events: readonly UsageEvent[]): { numberOfKeys: number; keysAndArguments: string[] } {
  const hashKeys: string[] = [];
  const hashKeyNumbers = new Map<string, number>();
  const keyNumber = (key: string): string => {
    let number = hashKeyNumbers.get(key);
    if (number === undefined) {
      number = hashKeys.push(key);
      hashKeyNumbers.set(key, number);
    }
    return String(number);
  };
  const groupArgs: string[] = [];
  const groups = new Map<string, number>();
  const markers: string[] = [];
  const eventArgs: string[] = [];
  let last: UsageEvent | undefined;
  let lastDay = '';
  let lastGroup = 0;
  for (const event of events) {
    const day = utcDay(event.occurredAt);
    if (last === undefined || event.keyId !== last.keyId || event.model !== last.model || day !== lastDay) {
      const id = `${day}\n${event.keyId}\n${event.model}`;
      let group = groups.get(id);
      if (group === undefined) {
        const periods = planPeriods(event, retention);
        group = groups.size + 1;
        groups.set(id, group);
        groupArgs.push(keyNumber(periods.dayKey), keyNumber(periods.monthKey), String(periods.dayExpiresAt), String(periods.monthExpiresAt), periods.fieldPrefix);
      }
      lastGroup = group;
    }
    last = event;
    lastDay = day;
    markers.push(requestMarkerKey(event.tenantId, event.requestId));
    const totals = totalsOf(event);
    eventArgs.push(String(lastGroup));
    for (const metric of METRICS) eventArgs.push(String(totals[metric]));
  }
  return {
    numberOfKeys: hashKeys.length + markers.length,
    keysAndArguments: hashKeys.concat(markers, String(retention.markerTtlMs), METRIC_HEADER, String(hashKeys.length), String(groups.size), groupArgs, eventArgs),
  };
}
