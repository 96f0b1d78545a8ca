import fc from 'fast-check';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastCounter, FastGauge, FastHistogram } from './fast-metrics.ts';
import { Metrics } from './metrics.ts';

type Names = [string, ...string[]];

const NAME = 'switchyard_test_metric';
const HELP = 'Help with a \\ and a\nnewline.';

/**
 * Label names, and the key order call sites write them in (prom-client renders a series' labels
 * in its first labels object's order, not in labelNames order).
 */
const labelling = fc
  .uniqueArray(fc.constantFrom('format', 'model', 'tenant', 'kind'), { minLength: 1, maxLength: 3 })
  .chain((names) => fc.tuple(fc.constant(names as Names), fc.shuffledSubarray(names, { minLength: names.length })));

/** No ',' or ':': prom-client's series key joins `name:value,` and would merge series that hold them. */
const labelValues = fc.array(fc.constantFrom('', 'a', 'b', 'quo"te', 'back\\slash', 'new\nline', 'ü'), { minLength: 3, maxLength: 3 });

function labelsOf(order: string[], names: Names, values: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const name of order) labels[name] = values[names.indexOf(name)] ?? '';
  return labels;
}

const RESET = { reset: true } as const;

/** Same operations on both; `reset` resets both registries. */
async function sameText<T extends object>(
  ops: (T | typeof RESET)[],
  apply: (op: T) => void,
  registries: [Registry, Registry],
): Promise<void> {
  for (const op of ops) {
    if ('reset' in op) for (const registry of registries) registry.resetMetrics();
    else apply(op);
  }
  const [prom, fast] = await Promise.all(registries.map((registry) => registry.metrics()));
  expect(fast).toBe(prom);
}

const withResets = <T>(op: fc.Arbitrary<T>) => fc.array(fc.oneof({ weight: 30, arbitrary: op }, { weight: 1, arbitrary: fc.constant(RESET) }), { maxLength: 60 });

describe('fast metrics', () => {
  it('should render a counter as prom-client does after the same increments', async () => {
    const amount = fc.option(fc.oneof(fc.nat(1_000), fc.double({ min: 0, max: 1e9, noNaN: true })), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(labelling, withResets(fc.record({ values: labelValues, amount })), async ([names, order], ops) => {
        const registries: [Registry, Registry] = [new Registry(), new Registry()];
        const prom = new Counter({ name: NAME, help: HELP, labelNames: names, registers: [registries[0]] });
        const fast = new FastCounter({ name: NAME, help: HELP, labelNames: names, registers: [registries[1]] });
        await sameText(
          ops,
          ({ values, amount }) => {
            prom.inc(labelsOf(order, names, values), amount);
            fast.inc(labelsOf(order, names, values), amount);
          },
          registries,
        );
      }),
    );
  });

  it('should render a gauge as prom-client does after the same inc, dec and set', async () => {
    const op = fc.record({ kind: fc.constantFrom('inc', 'dec', 'set'), values: labelValues, amount: fc.option(fc.double(), { nil: undefined }) });
    await fc.assert(
      fc.asyncProperty(labelling, withResets(op), async ([names, order], ops) => {
        const registries: [Registry, Registry] = [new Registry(), new Registry()];
        const prom = new Gauge({ name: NAME, help: HELP, labelNames: names, registers: [registries[0]] });
        const fast = new FastGauge({ name: NAME, help: HELP, labelNames: names, registers: [registries[1]] });
        await sameText(
          ops,
          ({ kind, values, amount }) => {
            const labels = labelsOf(order, names, values);
            if (kind === 'set') {
              prom.set(labels, amount ?? 0);
              fast.set(labels, amount ?? 0);
            } else {
              prom[kind](labels, amount);
              fast[kind](labels, amount);
            }
          },
          registries,
        );
      }),
    );
  });

  it('should render a histogram as prom-client does after the same observations, on and between bounds', async () => {
    const finite = fc.double({ min: -1e3, max: 1e3, noNaN: true });
    const setup = fc
      .uniqueArray(finite, { minLength: 1, maxLength: 8, selector: String })
      .map((bounds) => bounds.sort((a, b) => a - b))
      .chain((buckets) =>
        fc.tuple(fc.constant(buckets), withResets(fc.record({ values: labelValues, value: fc.oneof(finite, fc.constantFrom(...buckets)) }))),
      );
    await fc.assert(
      fc.asyncProperty(labelling, setup, async ([names, order], [buckets, ops]) => {
        const registries: [Registry, Registry] = [new Registry(), new Registry()];
        const prom = new Histogram({ name: NAME, help: HELP, labelNames: names, buckets, registers: [registries[0]] });
        const fast = new FastHistogram({ name: NAME, help: HELP, labelNames: names, buckets, registers: [registries[1]] });
        await sameText(
          ops,
          ({ values, value }) => {
            prom.observe(labelsOf(order, names, values), value);
            fast.observe(labelsOf(order, names, values), value);
          },
          registries,
        );
      }),
    );
  });

  it('should throw when a call would create a series with a label not in labelNames, or without one of them', async () => {
    const registry = new Registry();
    const labelNames: Names = ['provider', 'kind'];
    const counter = new FastCounter({ name: 'c_total', help: 'h', labelNames, registers: [registry] });
    const gauge = new FastGauge({ name: 'g', help: 'h', labelNames, registers: [registry] });
    const histogram = new FastHistogram({ name: 'h_seconds', help: 'h', labelNames, buckets: [1], registers: [registry] });
    const calls: ((labels: never) => void)[] = [(l) => counter.inc(l), (l) => gauge.set(l, 1), (l) => histogram.observe(l, 1)];
    for (const call of calls) {
      expect(() => call({ provider: 'p', kind: 'k', kidn: 'k' } as never)).toThrow(/label "kidn" is not one of provider, kind/);
      expect(() => call({ provider: 'p', kidn: 'k' } as never)).toThrow(/label "kidn" is not one of/);
      expect(() => call({ provider: 'p' } as never)).toThrow(/label "kind" is missing/);
      expect(() => call({ provider: 'p', kind: 1 } as never)).toThrow(/label "kind" is missing or not a string/);
    }
    expect(() => counter.inc({ provider: 'p', kind: 'k' }, -1)).toThrow(/cannot decrease/);
    expect(() => histogram.observe({ provider: 'p', kind: 'k' }, Number.NaN)).toThrow(/not a valid number/);
    expect(await registry.metrics()).toBe('# HELP c_total h\n# TYPE c_total counter\n\n# HELP g h\n# TYPE g gauge\n\n# HELP h_seconds h\n# TYPE h_seconds histogram\n');
  });

  it('should render in the Metrics registry beside its prom-client metrics and the default process metrics', async () => {
    const metrics = new Metrics();
    metrics.requests.inc({ format: 'chat', model: 'm', status_class: '2xx' });
    metrics.upstreamDuration.observe({ provider: 'p' }, 0.02);
    metrics.inflight.inc({ target: 'router' });
    metrics.retries.inc({ provider: 'p' });
    metrics.limiterDegraded.set(1);
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE switchyard_process_process_cpu_user_seconds_total counter\n');
    expect(text).toContain('\nswitchyard_requests_total{format="chat",model="m",status_class="2xx"} 1\n');
    expect(text).toContain(
      '\nswitchyard_upstream_duration_seconds_bucket{le="0.01",provider="p"} 0\nswitchyard_upstream_duration_seconds_bucket{le="0.025",provider="p"} 1\n',
    );
    expect(text).toContain('\nswitchyard_upstream_duration_seconds_sum{provider="p"} 0.02\nswitchyard_upstream_duration_seconds_count{provider="p"} 1\n');
    expect(text).toContain('\nswitchyard_inflight_requests{target="router"} 1\n');
    expect(text).toContain('\nswitchyard_retries_total{provider="p"} 1\n');
    expect(text).toContain('\nswitchyard_limiter_degraded 1\n');
    const json = await metrics.registry.getMetricsAsJSON();
    expect(json.find((metric) => metric.name === 'switchyard_inflight_requests')?.values).toEqual([{ value: 1, labels: { target: 'router' } }]);
  });
});

describe('Metrics.statusClass', () => {
  it('names the class of every status, those past 5xx included', () => {
    const metrics = new Metrics();
    expect([100, 200, 204, 301, 404, 429, 500, 503, 599, 600].map((status) => metrics.statusClass(status))).toEqual([
      '1xx', '2xx', '2xx', '3xx', '4xx', '4xx', '5xx', '5xx', '5xx', '6xx',
    ]);
  });
});
