import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { BoundedLabel } from './bounded-label.ts';
import { FastCounter, FastGauge, FastHistogram } from './fast-metrics.ts';

/** 10 ms to 10 min: LLM calls range from cached one-liners to long reasoning streams. */
const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const TRANSLATION_BUCKETS = [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05];

export interface MetricsOptions {
  /** Distinct tenant label values before overflow goes to `other`. */
  maxTenants?: number;
  /** Distinct model label values before overflow goes to `other`. */
  maxModels?: number;
}

/**
 * One registry per process (no prom-client globals), so several targets in one process
 * (`all`) and tests each see their own numbers.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly tenantLabel: BoundedLabel;
  readonly modelLabel: BoundedLabel;

  readonly requestDuration: FastHistogram<'format' | 'upstream' | 'model' | 'stream'>;
  readonly timeToFirstToken: FastHistogram<'format' | 'upstream' | 'model' | 'stream'>;
  readonly requests: FastCounter<'format' | 'model' | 'status_class'>;
  readonly tokens: FastCounter<'format' | 'model' | 'tenant' | 'kind'>;
  readonly upstreamDuration: FastHistogram<'provider'>;
  readonly upstreamErrors: FastCounter<'provider' | 'kind'>;
  readonly rateLimited: FastCounter<'tenant' | 'limit'>;
  readonly inflight: FastGauge<'target'>;
  readonly translationDuration: FastHistogram<'pair'>;
  readonly retries: Counter<'provider'>;
  readonly fallbacks: Counter<'model'>;
  readonly limiterDegraded: Gauge;
  readonly circuitState: Gauge<'deployment'>;
  readonly usageEventsDropped: Counter<'reason'>;
  readonly usageQueueDepth: Gauge;
  readonly tenantRequests: FastCounter<'tenant' | 'status_class'>;
  readonly hopConnections: Gauge;
  readonly hopRouteCalls: Counter;
  /** Read at each scrape: the hop connections this process holds (see countHopConnections). */
  #hopConnections: (() => number) | undefined;

  constructor(options: MetricsOptions = {}) {
    this.tenantLabel = new BoundedLabel(options.maxTenants ?? 500);
    this.modelLabel = new BoundedLabel(options.maxModels ?? 200);
    const registers = [this.registry];
    // The event-loop lag is sampled every 100 ms, not prom-client's 10: its timer woke an idle
    // process 100 times a second, half a percent of a core each replica spent doing nothing
    // (docs/performance.md, "An idle process"). Ten samples a second still give a scrape
    // window's p99 from hundreds.
    collectDefaultMetrics({ register: this.registry, prefix: 'switchyard_process_', eventLoopMonitoringPrecision: 100 });
    this.requestDuration = new FastHistogram({
      name: 'switchyard_request_duration_seconds',
      help: 'Time from request to the last byte of the answer, by client format.',
      labelNames: ['format', 'upstream', 'model', 'stream'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.timeToFirstToken = new FastHistogram({
      name: 'switchyard_time_to_first_token_seconds',
      help: 'Time from request to the first content byte sent to the client.',
      labelNames: ['format', 'upstream', 'model', 'stream'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.requests = new FastCounter({
      name: 'switchyard_requests_total',
      help: 'Answered requests by client format, model and status class.',
      labelNames: ['format', 'model', 'status_class'],
      registers,
    });
    this.tokens = new FastCounter({
      name: 'switchyard_tokens_total',
      help: 'Tokens by client format, model, tenant and kind (input, output, cached, reasoning).',
      labelNames: ['format', 'model', 'tenant', 'kind'],
      registers,
    });
    this.upstreamDuration = new FastHistogram({
      name: 'switchyard_upstream_duration_seconds',
      help: 'Upstream attempt duration by provider: from sending the request to the response headers (or the failure).',
      labelNames: ['provider'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.upstreamErrors = new FastCounter({
      name: 'switchyard_upstream_errors_total',
      help: 'Failed upstream calls, and answers the upstream broke after a 200, by provider and error kind.',
      labelNames: ['provider', 'kind'],
      registers,
    });
    this.rateLimited = new FastCounter({
      name: 'switchyard_rate_limited_total',
      help: 'Requests refused by the limiter, by tenant and limit.',
      labelNames: ['tenant', 'limit'],
      registers,
    });
    this.inflight = new FastGauge({
      name: 'switchyard_inflight_requests',
      help: 'Requests being served now.',
      labelNames: ['target'],
      registers,
    });
    this.translationDuration = new FastHistogram({
      name: 'switchyard_translation_duration_seconds',
      help: 'Time spent translating requests and answers, by client→upstream format pair.',
      labelNames: ['pair'],
      buckets: TRANSLATION_BUCKETS,
      registers,
    });
    this.retries = new Counter({
      name: 'switchyard_retries_total',
      help: 'Upstream retries by provider.',
      labelNames: ['provider'],
      registers,
    });
    this.fallbacks = new Counter({
      name: 'switchyard_fallbacks_total',
      help: 'Requests served by a fallback model, by the model asked for.',
      labelNames: ['model'],
      registers,
    });
    this.circuitState = new Gauge({
      name: 'switchyard_circuit_state',
      help: 'Circuit breaker per deployment (provider/model): 0 closed, 1 open (cooling down), 2 half-open (probing).',
      labelNames: ['deployment'],
      registers,
    });
    this.usageEventsDropped = new Counter({
      name: 'switchyard_usage_events_dropped_total',
      help: 'Usage events that could not be queued (queue unreachable and buffer full, invalid, or after close).',
      labelNames: ['reason'],
      registers,
    });
    this.usageQueueDepth = new Gauge({
      name: 'switchyard_usage_queue_depth',
      help: 'Usage batches waiting for a worker: staged by routers and not yet moved, plus jobs waiting or delayed; sampled by workers.',
      registers,
    });
    this.tenantRequests = new FastCounter({
      name: 'switchyard_tenant_requests_total',
      help: 'Answered requests per tenant and status class (tenant label capped; overflow is `other`).',
      labelNames: ['tenant', 'status_class'],
      registers,
    });
    this.limiterDegraded = new Gauge({
      name: 'switchyard_limiter_degraded',
      help: '1 while the rate-limit store is unreachable and the onStoreFailure policy is in force.',
      registers,
    });
    const readHopConnections = () => this.#hopConnections?.();
    this.hopConnections = new Gauge({
      name: 'switchyard_hop_connections',
      help: 'Ingress → router hop connections open: to routers on an ingress, from ingresses on a router.',
      registers,
      collect() {
        const count = readHopConnections();
        if (count !== undefined) this.set(count);
      },
    });
    this.hopRouteCalls = new Counter({
      name: 'switchyard_hop_route_calls_total',
      help: 'Requests an ingress sent as one HTTP route call each where the hop could not be had: an older router (a rollout under way), or a proxy that refuses the upgrade (a service mesh).',
      registers,
    });
  }

  /** Where the hop connections gauge reads its value at each scrape. */
  countHopConnections(read: () => number): void {
    this.#hopConnections = read;
  }

  tenant(raw: string): string {
    return this.tenantLabel.value(raw);
  }

  model(raw: string): string {
    return this.modelLabel.value(raw);
  }

  /** The `status_class` label of an HTTP status: `2xx`, `4xx`, … */
  statusClass(status: number): string {
    return STATUS_CLASSES[Math.floor(status / 100)] ?? `${Math.floor(status / 100)}xx`;
  }
}

/** Spelled out once rather than built twice a request. */
const STATUS_CLASSES = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
