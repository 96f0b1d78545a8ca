import type { UsageEvent } from './usage-event.ts';

/**
 * Builds events for tests, this package's and the worker's (the `/test-events` entry point;
 * not in the index). Dates fall in next year, so aggregates are never past their retention
 * whatever day the suite runs.
 */
export const TEST_YEAR = new Date().getUTCFullYear() + 1;

let counter = 0;

export function at(day: string, hour = 12): number {
  return Date.parse(`${day}T${String(hour).padStart(2, '0')}:00:00Z`);
}

export function usageEvent(overrides: Partial<UsageEvent> = {}): UsageEvent {
  counter += 1;
  return {
    requestId: `request-${counter}-${Math.random().toString(36).slice(2)}`,
    tenantId: 'acme',
    keyId: 'acme-ci',
    format: 'chat-completions',
    model: 'fast-chat',
    status: 200,
    stream: false,
    inputTokens: 100,
    outputTokens: 20,
    estimated: false,
    latencyMs: 250,
    occurredAt: at(`${TEST_YEAR}-03-14`),
    ...overrides,
  };
}
