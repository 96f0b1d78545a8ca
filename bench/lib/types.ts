import type { MachineInfo } from './machine.ts';
import type { TargetId } from './targets.ts';

/** One target × scenario, medians over runs. */
export interface Cell {
  target: TargetId;
  scenario: string;
  runs: number;
  rps: number;
  /** Loaded latency (closed loop, `connections` clients). */
  p50Ms: number;
  p99Ms: number;
  /** Lone request (one connection, back to back). */
  loneP50Ms: number;
  loneP99Ms: number;
  ttfbP50Ms: number;
  ttfbP99Ms: number;
  /** CPU seconds (user+system, all target processes) per 1,000 requests. */
  cpuPer1k: number;
  /** CPU seconds per wall second of the target processes during the run (1.0 = one core busy). */
  cpuUtil: number;
  /** cpuPer1k of each process of a target that has several (split), by role; absent in older results. */
  cpuPer1kByRole?: Record<string, number>;
  rssLoadMb: number;
  errors: number;
  /** Every run, for the JSON. */
  raw: Record<string, number>[];
}

export interface StreamHold {
  target: TargetId;
  streams: number;
  holdSeconds: number;
  completed: number;
  failed: number;
  stalled: number;
  maxOpen: number;
  rssIdleMb: number;
  rssPlateauMb: number;
  perStreamKb: number;
  cpuSeconds: number;
}

export interface TargetSummary {
  target: TargetId;
  /** Median over the target's instances. */
  rssIdleMb: number;
  /** Of the instance with the largest process after all runs (for one-process targets, the one that held the most). */
  rssAfterMb: number;
  /** Each process's RSS after all runs, by role, where the target has several (split), in that instance. */
  rssAfterByRoleMb?: Record<string, number>;
  /** Every instance's RSS after all runs (summed over its processes); absent in older results. */
  rssAfterByInstanceMb?: number[];
  /** The loaded processes read before they logged an idle trim after their last run (`instance 2`, `instance 1 router`); absent when none were, and in older results. */
  readBeforeTrim?: string[];
  startError?: string;
}

export interface Soak {
  target: TargetId;
  seconds: number;
  rates: Record<string, number>;
  requests: number;
  errors: number;
  rssFirstMb: number;
  rssLastMb: number;
  growth: number;
  samples: { t: number; rssMb: number }[];
}

export interface BenchReport {
  mode: 'full' | 'smoke' | 'soak';
  machine: MachineInfo;
  settings: Record<string, unknown>;
  cells: Cell[];
  targets: TargetSummary[];
  streams: StreamHold[];
  soak?: Soak;
  failures: string[];
}
