import { randomBytes } from 'node:crypto';
import { createRequestLog } from './request-log.ts';
import type { RequestLog } from './request-log.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';

export interface SimulatorStats {
  /** Requests served, introspection (/_sim/…) excluded. */
  requests: number;
  openConnections: number;
  closedConnections: number;
  /** Streams whose client went away before the last event. */
  abortedStreams: number;
}

/** Everything one running simulator remembers between requests. */
export interface SimulatorState {
  defaults: SimulatorKnobs;
  log: RequestLog;
  stats: SimulatorStats;
  /** Unique per request and per simulator run: routers store responses by these ids. */
  nextId(): string;
  /**
   * `fail_rate` without randomness: the n-th sampled request fails when n × rate crosses an
   * integer, so rate 0.25 fails exactly every fourth request and every test run is the same.
   */
  sampleFailure(rate: number): boolean;
}

export function createSimulatorState(defaults: SimulatorKnobs): SimulatorState {
  const instance = randomBytes(3).toString('hex');
  let idCounter = 0;
  let sampled = 0;
  return {
    defaults,
    log: createRequestLog(),
    stats: { requests: 0, openConnections: 0, closedConnections: 0, abortedStreams: 0 },
    nextId() {
      idCounter += 1;
      return `sim${instance}${idCounter.toString(36)}`;
    },
    sampleFailure(rate) {
      sampled += 1;
      const clamped = Math.min(1, Math.max(0, rate));
      return Math.floor(sampled * clamped) > Math.floor((sampled - 1) * clamped);
    },
  };
}
