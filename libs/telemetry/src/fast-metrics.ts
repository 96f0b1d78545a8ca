import type { Metric, Registry } from 'prom-client';

/**
 * Counters, gauges and histograms for the per-request path. prom-client validates the labels,
 * builds a hash string and (for histograms) allocates a closure on every call: several µs of a
 * request's CPU for its dozen updates. Here a call walks nested Maps keyed by the label values, in
 * `labelNames` order, to a series created once and updates its numbers in place; prom-client's
 * Registry turns them into text only at scrape, through the same get() its own metrics have, so
 * /metrics reads byte for byte as it would with prom-client's classes.
 *
 * Labels are checked when a call creates a series, not on every call: a label missing or not in
 * `labelNames` throws the first time, which tests hit, and costs nothing afterwards. Every series
 * has all its labels and they are strings (prom-client would also take a partial set or numbers).
 */

export type Labels<L extends string> = Readonly<Record<L, string>>;

export interface FastMetricConfiguration<L extends string> {
  name: string;
  help: string;
  labelNames: readonly [L, ...L[]];
  registers: readonly Registry[];
}

export interface FastHistogramConfiguration<L extends string> extends FastMetricConfiguration<L> {
  buckets: readonly number[];
}

/** A sample as prom-client's Registry reads it from get(). */
export interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

export interface MetricSnapshot {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

abstract class SeriesMetric<L extends string, S extends { labels: Labels<L> }> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly aggregator = 'sum';
  abstract readonly type: MetricSnapshot['type'];
  /** Nested by label value, one level per label name; the last level holds the series. */
  #root = new Map<string, unknown>();
  /** In creation order, which is prom-client's rendering order. */
  #series: S[] = [];

  constructor(config: FastMetricConfiguration<L>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    // The Registry only reads name, help, type and aggregator and calls get() and reset(); its
    // typings accept nothing but prom-client's own classes.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  protected abstract create(labels: Labels<L>): S;
  protected abstract samples(series: S): Sample[];

  protected series(labels: Labels<L>): S {
    const names = this.labelNames;
    const last = names.length - 1;
    let node = this.#root;
    for (let i = 0; i < last; i++) {
      const next = node.get(labels[names[i]!]) as Map<string, unknown> | undefined;
      if (next === undefined) return this.#add(labels);
      node = next;
    }
    return (node.get(labels[names[last]!]) as S | undefined) ?? this.#add(labels);
  }

  #add(labels: Labels<L>): S {
    const names = this.labelNames;
    for (const name of Object.keys(labels)) {
      if (!names.includes(name as L)) throw new Error(`${this.name}: label "${name}" is not one of ${names.join(', ')}`);
    }
    for (const name of names) {
      if (typeof labels[name] !== 'string') throw new Error(`${this.name}: label "${name}" is missing or not a string`);
    }
    // Copied, since the caller may reuse its object; rendered in its key order, as prom-client
    // renders a series' first labels object.
    const series = this.create({ ...labels });
    const last = names.length - 1;
    let node = this.#root;
    for (let i = 0; i < last; i++) {
      const value = labels[names[i]!];
      let next = node.get(value) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        node.set(value, next);
      }
      node = next;
    }
    node.set(labels[names[last]!], series);
    this.#series.push(series);
    return series;
  }

  async get(): Promise<MetricSnapshot> {
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.#series.flatMap((series) => this.samples(series)),
    };
  }

  reset(): void {
    this.#root = new Map();
    this.#series = [];
  }
}

interface ValueSeries<L extends string> {
  labels: Labels<L>;
  value: number;
}

abstract class ValueMetric<L extends string> extends SeriesMetric<L, ValueSeries<L>> {
  protected create(labels: Labels<L>): ValueSeries<L> {
    return { labels, value: 0 };
  }

  protected samples(series: ValueSeries<L>): Sample[] {
    return [{ value: series.value, labels: { ...series.labels } }];
  }
}

export class FastCounter<L extends string> extends ValueMetric<L> {
  readonly type = 'counter';

  inc(labels: Labels<L>, value = 1): void {
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: ${value} is not a valid number`);
    if (value < 0) throw new Error(`${this.name}: a counter cannot decrease (${value})`);
    this.series(labels).value += value;
  }
}

export class FastGauge<L extends string> extends ValueMetric<L> {
  readonly type = 'gauge';

  inc(labels: Labels<L>, value = 1): void {
    this.series(labels).value += value;
  }

  dec(labels: Labels<L>, value = 1): void {
    this.series(labels).value -= value;
  }

  set(labels: Labels<L>, value: number): void {
    this.series(labels).value = value;
  }
}

interface HistogramSeries<L extends string> {
  labels: Labels<L>;
  /** Observations per bucket, not cumulative: one increment per observation. */
  buckets: Float64Array;
  sum: number;
  count: number;
}

export class FastHistogram<L extends string> extends SeriesMetric<L, HistogramSeries<L>> {
  readonly type = 'histogram';
  readonly upperBounds: readonly number[];

  constructor(config: FastHistogramConfiguration<L>) {
    super(config);
    this.upperBounds = [...config.buckets];
  }

  observe(labels: Labels<L>, value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: ${value} is not a valid number`);
    const series = this.series(labels);
    const bounds = this.upperBounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    // Above the last bound only the +Inf bucket, which is the count, takes it.
    if (i < bounds.length) series.buckets[i]!++;
    series.sum += value;
    series.count++;
  }

  protected create(labels: Labels<L>): HistogramSeries<L> {
    return { labels, buckets: new Float64Array(this.upperBounds.length), sum: 0, count: 0 };
  }

  protected samples(series: HistogramSeries<L>): Sample[] {
    const bucket = `${this.name}_bucket`;
    let cumulative = 0;
    const samples: Sample[] = this.upperBounds.map((le, i) => {
      cumulative += series.buckets[i]!;
      return { metricName: bucket, value: cumulative, labels: { le, ...series.labels } };
    });
    samples.push(
      { metricName: bucket, value: series.count, labels: { le: '+Inf', ...series.labels } },
      { metricName: `${this.name}_sum`, value: series.sum, labels: { ...series.labels } },
      { metricName: `${this.name}_count`, value: series.count, labels: { ...series.labels } },
    );
    return samples;
  }
}
