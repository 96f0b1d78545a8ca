import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { Metrics } from './metrics.ts';

/**
 * The dashboards (deploy/grafana/dashboards/*.json) and alert rules (deploy/prometheus/alerts.yaml)
 * may only use metric names and labels that metrics.ts really exports, and must stay portable
 * (a `datasource` template variable, no hard-coded datasource uid).
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dashboardsDir = join(root, 'deploy/grafana/dashboards');
const alertsFile = join(root, 'deploy/prometheus/alerts.yaml');

/**
 * Metrics used before they exist. Each entry needs a reason; it is checked normally once
 * metrics.ts exports it.
 */
const NOT_YET_EXPORTED = new Set<string>([]);

/** Labels Prometheus attaches at scrape time, not the process. */
const TARGET_LABELS = new Set(['job', 'instance', 'namespace', 'pod']);

const RUNBOOK_ANCHORS = ['high-error-ratio', 'high-latency', 'slow-first-token', 'limiter-degraded', 'circuit-open', 'upstream-errors', 'usage-queue-backlog'];

const PORTABLE_DATASOURCE = { type: 'prometheus', uid: '${datasource}' };

// ---- Loading ----

type Json = unknown;
interface Panel {
  id?: number;
  type: string;
  title?: string;
  datasource?: Json;
  gridPos?: { h: number; w: number; x: number; y: number };
  targets?: Array<{ expr?: string; datasource?: Json; refId?: string }>;
  panels?: Panel[];
}
interface TemplateVariable {
  name: string;
  type: string;
  query?: string | { query?: string };
  definition?: string;
  datasource?: Json;
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  tags: string[];
  panels: Panel[];
  templating: { list: TemplateVariable[] };
}
interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const dashboards: Array<{ file: string; dashboard: Dashboard; raw: Json }> = readdirSync(dashboardsDir)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .map((file) => {
    const raw: Json = JSON.parse(readFileSync(join(dashboardsDir, file), 'utf8'));
    return { file, dashboard: raw as Dashboard, raw };
  });

const alertGroups = (parseYaml(readFileSync(alertsFile, 'utf8')) as { groups: Array<{ name: string; rules: Rule[] }> }).groups;
const rules = alertGroups.flatMap((group) => group.rules);
const alerts = rules.filter((rule) => rule.alert !== undefined);

function allPanels(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...allPanels(panel.panels ?? [])]);
}

function variableQuery(variable: TemplateVariable): string | undefined {
  if (variable.type !== 'query') return undefined;
  return typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? variable.definition);
}

/** Every PromQL expression, labelled with where it comes from. */
function expressions(): Array<{ where: string; expr: string }> {
  const found: Array<{ where: string; expr: string }> = [];
  for (const { file, dashboard } of dashboards) {
    for (const panel of allPanels(dashboard.panels)) {
      for (const target of panel.targets ?? []) {
        if (target.expr !== undefined) found.push({ where: `${file} "${panel.title}" ${target.refId ?? ''}`, expr: target.expr });
      }
    }
    for (const variable of dashboard.templating.list) {
      const query = variableQuery(variable);
      if (query !== undefined) found.push({ where: `${file} $${variable.name}`, expr: query });
    }
  }
  for (const rule of rules) found.push({ where: `alerts.yaml ${rule.alert ?? rule.record}`, expr: rule.expr });
  return found;
}

// ---- A small PromQL reader: enough for names, selectors and by/without/on clauses. ----

/** Blanks out string literals (keeping offsets), so names inside label values are not read as metrics. */
function withoutStrings(expr: string): string {
  return expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, (literal) => `"${' '.repeat(literal.length - 2)}"`);
}

const METRIC = /\bswitchyard_[A-Za-z0-9_]+\b/g;

function metricNames(expr: string): string[] {
  return [...withoutStrings(expr).matchAll(METRIC)].map((match) => match[0]);
}

/** `name{label="v", other=~"w"}` → each selector's label names. */
function selectors(expr: string): Array<{ metric: string; labels: string[] }> {
  const result: Array<{ metric: string; labels: string[] }> = [];
  const blanked = withoutStrings(expr);
  for (const match of blanked.matchAll(/\b(switchyard_[A-Za-z0-9_]+)\s*\{([^}]*)\}/g)) {
    const start = (match.index ?? 0) + match[0].indexOf('{') + 1;
    const body = expr.slice(start, start + (match[2] ?? '').length);
    const labels = [...body.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"/g)].map((label) => label[1] ?? '');
    result.push({ metric: match[1] ?? '', labels });
  }
  return result;
}

/** The balanced `( … )` group starting at `open` (which must be `(`), as [open, close]. */
function groupFrom(text: string, open: number): [number, number] | undefined {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '(') depth++;
    else if (text[index] === ')' && --depth === 0) return [open, index];
  }
  return undefined;
}

/** The balanced group ending just before `end` (skipping spaces), for `sum(x) by (l)`. */
function groupBefore(text: string, end: number): [number, number] | undefined {
  let close = end - 1;
  while (close >= 0 && /\s/.test(text[close] ?? '')) close--;
  if (text[close] !== ')') return undefined;
  let depth = 0;
  for (let index = close; index >= 0; index--) {
    if (text[index] === ')') depth++;
    else if (text[index] === '(' && --depth === 0) return [index, close];
  }
  return undefined;
}

/**
 * Grouping clauses with the text they apply to: `by`/`without` → the aggregation's argument
 * (after or before the clause); `on`/`ignoring` → the whole expression (both operands).
 */
function groupingClauses(expr: string): Array<{ clause: string; labels: string[]; scope: string }> {
  const text = withoutStrings(expr);
  const result: Array<{ clause: string; labels: string[]; scope: string }> = [];
  for (const match of text.matchAll(/\b(by|without|on|ignoring)\s*\(([^)]*)\)/g)) {
    const clause = match[1] ?? '';
    const labels = (match[2] ?? '')
      .split(',')
      .map((label) => label.trim())
      .filter((label) => label !== '');
    const start = match.index ?? 0;
    let scope = text;
    if (clause === 'by' || clause === 'without') {
      const after = start + match[0].length;
      const next = text.slice(after).search(/\S/);
      const group = next >= 0 && text[after + next] === '(' ? groupFrom(text, after + next) : groupBefore(text, start);
      if (group === undefined) throw new Error(`cannot find the argument of "${match[0]}" in ${expr}`);
      scope = text.slice(group[0], group[1] + 1);
    }
    result.push({ clause, labels, scope });
  }
  return result;
}

// ---- The registry of metrics.ts ----

interface Known {
  type: string;
  labels: Set<string>;
}

const known = new Map<string, Known>();

beforeAll(async () => {
  const metrics = new Metrics();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    // prom-client keeps each metric's label names on the instance (not in its typings).
    const labelNames = (metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames?: unknown }).labelNames;
    if (!Array.isArray(labelNames)) throw new Error(`prom-client no longer exposes labelNames for ${metric.name}`);
    known.set(metric.name, { type: String(metric.type), labels: new Set(labelNames.map(String)) });
  }
});

/** The registry metric behind a series name (histograms expose _bucket, _sum and _count). */
function resolve(series: string): { name: string; metric: Known | undefined; bucket: boolean } {
  const direct = known.get(series);
  if (direct !== undefined) return { name: series, metric: direct, bucket: false };
  const suffix = /_(bucket|sum|count)$/.exec(series);
  if (suffix !== null) {
    const base = series.slice(0, -suffix[0].length);
    const metric = known.get(base);
    if (metric?.type === 'histogram') return { name: base, metric, bucket: suffix[1] === 'bucket' };
  }
  return { name: series, metric: undefined, bucket: false };
}

function labelProblems(series: string, labels: string[]): string[] {
  const { name, metric, bucket } = resolve(series);
  if (metric === undefined) return [];
  return labels
    .filter((label) => !metric.labels.has(label) && !TARGET_LABELS.has(label) && !(bucket && label === 'le'))
    .map((label) => `${series}: no label "${label}" (has ${[...metric.labels].join(', ') || 'none'}) on ${name}`);
}

// ---- Tests ----

describe('metric names and labels in dashboards and alerts', () => {
  it('should find the dashboards and the alert rules', () => {
    expect(dashboards.map(({ file }) => file)).toEqual(['overview.json', 'tenants.json', 'upstreams.json']);
    expect(alerts.length).toBeGreaterThanOrEqual(7);
  });

  it('should use only metric names that metrics.ts exports', () => {
    const unknown: string[] = [];
    const used = new Set<string>();
    for (const { where, expr } of expressions()) {
      for (const series of metricNames(expr)) {
        const { name, metric } = resolve(series);
        used.add(name);
        if (metric === undefined && !NOT_YET_EXPORTED.has(name)) unknown.push(`${where}: ${series}`);
      }
    }
    expect(unknown).toEqual([]);
    // Every exported Switchyard metric (not the process defaults) shows somewhere.
    const unused = [...known.keys()].filter((name) => !name.startsWith('switchyard_process_') && !used.has(name));
    expect(unused).toEqual([]);
    // The allow-list holds no stale entry.
    for (const name of NOT_YET_EXPORTED) {
      expect(used).toContain(name);
      expect(known.has(name)).toBe(false);
    }
  });

  it('should select only labels the metric has', () => {
    const problems = expressions().flatMap(({ where, expr }) =>
      selectors(expr).flatMap(({ metric, labels }) => labelProblems(metric, labels).map((problem) => `${where}: ${problem}`)),
    );
    expect(problems).toEqual([]);
  });

  it('should group by (and match on) only labels every metric in scope has', () => {
    const problems = expressions().flatMap(({ where, expr }) =>
      groupingClauses(expr).flatMap(({ clause, labels, scope }) =>
        metricNames(scope).flatMap((series) => labelProblems(series, labels).map((problem) => `${where} ${clause}: ${problem}`)),
      ),
    );
    expect(problems).toEqual([]);
  });

  it('should catch a misspelt metric, a missing label and a wrong by clause (self-check of the reader)', () => {
    expect(metricNames('sum(rate(switchyard_request_total{job="switchyard_x"}[5m]))')).toEqual(['switchyard_request_total']);
    expect(resolve('switchyard_request_duration_seconds_bucket')).toMatchObject({ name: 'switchyard_request_duration_seconds', bucket: true });
    expect(resolve('switchyard_requests_total_count').metric).toBeUndefined();
    expect(labelProblems('switchyard_requests_total', ['tenant'])).toHaveLength(1);
    expect(labelProblems('switchyard_request_duration_seconds_bucket', ['le', 'format', 'job'])).toEqual([]);
    expect(labelProblems('switchyard_request_duration_seconds_count', ['le'])).toHaveLength(1);
    expect(selectors('switchyard_tokens_total{tenant=~"$tenant", kind!="x,y"}')).toEqual([{ metric: 'switchyard_tokens_total', labels: ['tenant', 'kind'] }]);
    const clauses = groupingClauses('sum by (tenant) (rate(switchyard_requests_total[5m])) / sum(rate(switchyard_tokens_total[5m])) by (kind)');
    expect(clauses.map(({ labels, scope }) => [labels, metricNames(scope)])).toEqual([
      [['tenant'], ['switchyard_requests_total']],
      [['kind'], ['switchyard_tokens_total']],
    ]);
  });

  it('should only use recording rules that alerts.yaml records', () => {
    const recorded = new Set(rules.flatMap((rule) => (rule.record === undefined ? [] : [rule.record])));
    const used = expressions().flatMap(({ where, expr }) => [...withoutStrings(expr).matchAll(/\bswitchyard:[A-Za-z0-9_:]+/g)].map((match) => ({ where, name: match[0] })));
    expect(used.length).toBeGreaterThan(0);
    expect(used.filter(({ name }) => !recorded.has(name))).toEqual([]);
  });
});

describe('Grafana dashboards', () => {
  it.each(dashboards.map(({ file, dashboard, raw }) => [file, dashboard, raw] as const))('%s should be portable and well-formed', (_file, dashboard, raw) => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(dashboard.tags).toContain('switchyard');
    expect(dashboard.uid).toMatch(/^switchyard-[a-z-]+$/);

    const variables = dashboard.templating.list;
    expect(variables.find((variable) => variable.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });

    // Every datasource reference anywhere in the JSON is the template variable (no hard-coded uid).
    const references: Json[] = [];
    const walk = (node: Json): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if (key === 'datasource') references.push(value);
          walk(value);
        }
      }
    };
    walk(raw);
    expect(references.length).toBeGreaterThan(0);
    for (const reference of references) expect(reference).toEqual(PORTABLE_DATASOURCE);
    expect(JSON.stringify(raw)).not.toMatch(/__inputs|\$\{DS_/);

    const panels = allPanels(dashboard.panels);
    const ids = panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of panels) {
      expect(panel.gridPos, `${panel.title} gridPos`).toBeDefined();
      if (panel.type === 'row') continue;
      expect(panel.datasource, `${panel.title} datasource`).toEqual(PORTABLE_DATASOURCE);
      expect(panel.targets?.length, `${panel.title} targets`).toBeGreaterThan(0);
    }

    // Every $variable an expression uses is defined (Grafana's own $__… aside).
    const defined = new Set(variables.map((variable) => variable.name));
    const used = expressions()
      .filter(({ where }) => where.startsWith(_file))
      .flatMap(({ expr }) => [...expr.matchAll(/\$\{?([A-Za-z_]\w*)/g)].map((match) => match[1] ?? ''))
      .filter((name) => !name.startsWith('__'));
    expect(used.filter((name) => !defined.has(name))).toEqual([]);
  });

  it('should give every dashboard its own uid and title', () => {
    const uids = dashboards.map(({ dashboard }) => dashboard.uid);
    const titles = dashboards.map(({ dashboard }) => dashboard.title);
    expect(new Set(uids).size).toBe(uids.length);
    expect(new Set(titles).size).toBe(titles.length);
  });

  it('should offer a $tenant variable from label_values on the tenants dashboard', () => {
    const tenants = dashboards.find(({ file }) => file === 'tenants.json')?.dashboard;
    const tenant = tenants?.templating.list.find((variable) => variable.name === 'tenant');
    expect(tenant?.type).toBe('query');
    expect(variableQuery(tenant as TemplateVariable)).toMatch(/^label_values\(switchyard_[a-z_]+(\{.*\})?, tenant\)$/);
  });
});

describe('Prometheus alerts', () => {
  it.each(alerts.map((rule) => [rule.alert, rule] as const))('%s should carry severity, summary, description and a runbook', (_name, rule) => {
    expect(rule.labels?.severity).toMatch(/^(critical|warning|info)$/);
    expect(rule.annotations?.summary?.trim()).toBeTruthy();
    expect(rule.annotations?.description?.trim()).toBeTruthy();
    expect(rule.annotations?.runbook_url).toMatch(new RegExp(`^docs/operations\\.md#(${RUNBOOK_ANCHORS.join('|')})$`));
  });

  it('should cover every runbook section', () => {
    const anchors = new Set(alerts.map((rule) => rule.annotations?.runbook_url?.split('#')[1]));
    expect([...anchors].sort()).toEqual([...RUNBOOK_ANCHORS].sort());
  });

  it('should have unique alert and record names per severity', () => {
    const keys = rules.map((rule) => `${rule.alert ?? rule.record}/${rule.labels?.severity ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  const operations = join(root, 'docs/operations.md');
  it.skipIf(!existsSync(operations))('should point at anchors that docs/operations.md has', () => {
    const text = readFileSync(operations, 'utf8');
    const anchors = new Set([
      ...[...text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((match) =>
        (match[1] ?? '')
          .toLowerCase()
          .replace(/[^\p{L}\p{N}\s-]/gu, '')
          .trim()
          .replace(/\s/g, '-'),
      ),
      ...[...text.matchAll(/\bid="([^"]+)"/g)].map((match) => match[1]),
    ]);
    expect(RUNBOOK_ANCHORS.filter((anchor) => !anchors.has(anchor))).toEqual([]);
  });
});
