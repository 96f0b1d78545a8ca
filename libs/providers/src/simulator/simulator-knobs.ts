/**
 * Everything a test or a benchmark can turn on the simulator. Names are the wire names of the
 * knobs (`x-sim-<knob>` headers with dashes, `[[sim:<knob>=…]]` directives with either), so
 * they stay snake_case here too.
 */
export interface SimulatorKnobs {
  /** Wait before the response headers. */
  latency_ms: number;
  /** Wait between the headers and the first stream event. */
  ttft_ms: number;
  /** Wait between stream events; wins over `tokens_per_second`. */
  chunk_delay_ms: number;
  /** Pace stream events at this many per second (0 = unpaced). */
  tokens_per_second: number;
  /** Split the reply into this many stream pieces (0 = one word per piece). */
  chunks: number;
  /** Length of the reply in words (the echo prefix is never cut). */
  words: number;
  /** Parallel tool calls to make when tools are offered. */
  tool_calls: number;
  /** Cache-read input tokens reported on top of the counted input. */
  cached_tokens: number;
  /** Reasoning tokens reported on top of the emitted reasoning words. */
  reasoning_tokens: number;
  /** Answer with this HTTP status and the vendor's error envelope (0 = succeed). */
  fail_status: number;
  /** `retry-after` seconds sent with a 429. */
  fail_retry_after: number;
  /** Share of requests (0..1) that fail with `fail_status`, or 500 when that is 0. */
  fail_rate: number;
  /** Send this many stream events, then the vendor's in-band error event (-1 = off). */
  fail_after_chunks: number;
  /** Send this many stream events, then destroy the socket (-1 = off). */
  disconnect_after_chunks: number;
  /** Send an unparseable body, or one unparseable stream event. */
  malformed: boolean;
  /** Extra wait right before writing the headers, for header-timeout tests. */
  slow_headers_ms: number;
  /** Leave usage out wherever the vendor format lets it be absent. */
  no_usage: boolean;
}

export const DEFAULT_KNOBS: Readonly<SimulatorKnobs> = Object.freeze({
  latency_ms: 0,
  ttft_ms: 0,
  chunk_delay_ms: 0,
  tokens_per_second: 0,
  chunks: 0,
  words: 12,
  tool_calls: 1,
  cached_tokens: 0,
  reasoning_tokens: 0,
  fail_status: 0,
  fail_retry_after: 1,
  fail_rate: 0,
  fail_after_chunks: -1,
  disconnect_after_chunks: -1,
  malformed: false,
  slow_headers_ms: 0,
  no_usage: false,
});

export type KnobName = keyof SimulatorKnobs;

export function isKnobName(name: string): name is KnobName {
  return Object.hasOwn(DEFAULT_KNOBS, name);
}
