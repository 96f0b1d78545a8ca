// The objects helm/switchyard renders, checked against what issue 7 asks of a production chart:
// per target (ingress, router, catalog, worker, and `all` in monolithic mode) a PDB, an HPA on
// CPU and in-flight requests, a drain that fits the grace period, spread, a locked-down
// security context, probes, secrets by reference, NetworkPolicies; and the Ingress, HTTPRoute,
// ServiceMonitor, PrometheusRule and dashboards. No helm binary exists on CI, so the chart is
// rendered by test/helm/support/render-chart.ts; each check returns its problems, and the
// broken variants at the end prove that every check can fail.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { chart, errorsOf, mergeValues, root, values, type Values } from './support/chart.ts';
import { ChartFailure, renderChart, type RenderedObject } from './support/render-chart.ts';

type Target = 'all' | 'ingress' | 'router' | 'catalog' | 'worker';
type Labels = Record<string, string>;
interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}
interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
}
interface Container {
  name: string;
  args: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  ports: Array<{ name: string; containerPort: number }>;
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  startupProbe?: { httpGet?: { path: string; port: string } };
  livenessProbe?: { httpGet?: { path: string; port: string } };
  readinessProbe?: { httpGet?: { path: string; port: string } };
}
interface PodSpec {
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  terminationGracePeriodSeconds?: number;
  containers: Container[];
  topologySpreadConstraints?: Array<{ topologyKey: string; labelSelector: LabelSelector; matchLabelKeys?: string[] }>;
}
interface DeploymentSpec {
  replicas?: number;
  selector: LabelSelector;
  template: { metadata: { labels: Labels }; spec: PodSpec };
}

const NAMESPACE = 'gateway';
const WORKLOADS: Target[] = ['ingress', 'router', 'catalog', 'worker'];
const CLIENTS_OF: Record<Target, Target[] | 'anyone'> = { all: 'anyone', ingress: 'anyone', router: ['ingress'], catalog: ['ingress', 'router', 'worker'], worker: [] };
const ALERTS = parse(readFileSync(join(root, 'deploy/prometheus/alerts.yaml'), 'utf8')) as { groups: Array<{ rules: Array<{ alert?: string }> }> };
const DASHBOARDS = readdirSync(join(root, 'deploy/grafana/dashboards')).filter((name) => name.endsWith('.json'));

/** What a production install sets: secrets by reference, every integration on, in-flight scaling. */
const production = (mode: 'monolithic' | 'microservices'): Values => ({
  mode,
  redis: { secretRef: { name: 'switchyard-redis', key: 'url' } },
  adminToken: { secretRef: { name: 'switchyard-admin', key: 'token' } },
  secretEnv: [{ name: 'OPENAI_API_KEY', secretRef: { name: 'llm-provider-keys', key: 'openai' } }],
  targets: Object.fromEntries(
    (mode === 'monolithic' ? ['all'] : ['ingress', 'router']).map((target) => [target, { autoscaling: { enabled: true, inflight: { enabled: true } } }]),
  ),
  ingress: { enabled: true },
  httpRoute: { enabled: true, parentRefs: [{ name: 'public', namespace: 'gateways' }] },
  monitoring: { serviceMonitor: { enabled: true }, prometheusRule: { enabled: true, disabledAlerts: ['SwitchyardCircuitOpen'] }, grafanaDashboards: { enabled: true } },
});

/** `helm template` with these values over the defaults: the schema is applied first, as helm does. */
function render(override: Values): RenderedObject[] {
  const merged = mergeValues(values, override);
  const errors = errorsOf(merged);
  if (errors.length > 0) throw new Error(`values refused by the schema: ${JSON.stringify(errors)}`);
  return renderChart(chart, merged, { name: 'sy', namespace: NAMESPACE });
}

const named = (objects: RenderedObject[], kind: string, name: string) => objects.find((object) => object.kind === kind && object.metadata.name === name);
const componentName = (target: string) => `sy-switchyard-${target}`;

function selects(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (selector === undefined) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpression = (selector.matchExpressions ?? []).every((expression) => {
    const value = labels[expression.key];
    if (expression.operator === 'In') return value !== undefined && (expression.values ?? []).includes(value);
    if (expression.operator === 'NotIn') return value === undefined || !(expression.values ?? []).includes(value);
    if (expression.operator === 'Exists') return value !== undefined;
    return value === undefined;
  });
  return byLabel && byExpression;
}

/** Kubernetes' reading of a peer: podSelector alone means the policy's namespace; both must match when both are set. */
function peerAdmits(peer: Peer, pod: { namespace: string; namespaceLabels: Labels; labels: Labels }): boolean {
  const namespaceMatches = peer.namespaceSelector === undefined ? pod.namespace === NAMESPACE : selects(peer.namespaceSelector, pod.namespaceLabels);
  const podMatches = peer.podSelector === undefined || selects(peer.podSelector, pod.labels);
  return namespaceMatches && podMatches;
}

interface Pod {
  namespace: string;
  namespaceLabels: Labels;
  labels: Labels;
}
const podIn = (namespace: string, labels: Labels): Pod => ({ namespace, namespaceLabels: { 'kubernetes.io/metadata.name': namespace }, labels });
const switchyardPod = (target: string) => podIn(NAMESPACE, { 'app.kubernetes.io/name': 'switchyard', 'app.kubernetes.io/instance': 'sy', 'app.kubernetes.io/component': target });

/** Whether the NetworkPolicies that select `target`'s pods let `pod` open a connection to its http port. */
function admitted(objects: RenderedObject[], target: string, pod: Pod): boolean {
  const policies = objects.filter((object) => object.kind === 'NetworkPolicy' && selects((object.spec as { podSelector: LabelSelector }).podSelector, switchyardPod(target).labels));
  if (policies.length === 0) return true;
  return policies.some((policy) =>
    ((policy.spec as { ingress?: Array<{ from?: Peer[]; ports?: Array<{ port: string }> }> }).ingress ?? []).some(
      (rule) => (rule.ports ?? [{ port: 'http' }]).some((port) => port.port === 'http') && (rule.from === undefined || rule.from.some((peer) => peerAdmits(peer, pod))),
    ),
  );
}

const ATTACKER = podIn('tenant-sandbox', { 'app.kubernetes.io/name': 'prometheus' });
const PROMETHEUS = podIn('monitoring', { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'kube-prometheus-stack' });

/** Everything one target's Deployment, PDB, HPA and NetworkPolicy must satisfy. */
function workloadProblems(objects: RenderedObject[], target: Target, options: { autoscaled: boolean; inflight: boolean }): string[] {
  const problems: string[] = [];
  const problem = (message: string) => problems.push(`${target}: ${message}`);
  const deployment = named(objects, 'Deployment', componentName(target));
  if (deployment === undefined) return [`${target}: no Deployment`];
  const spec = deployment.spec as unknown as DeploymentSpec;
  const podLabels = spec.template.metadata.labels;
  const pod = spec.template.spec;
  const container = pod.containers.find((entry) => entry.name === 'switchyard');
  if (container === undefined) return [`${target}: no switchyard container`];
  if (container.args[0] !== target) problem(`runs ${container.args[0]}`);

  const pdb = objects.find((object) => object.kind === 'PodDisruptionBudget' && selects((object.spec as { selector: LabelSelector }).selector, podLabels));
  if (pdb === undefined) problem('no PodDisruptionBudget selects its pods');
  else if ((pdb.spec as { maxUnavailable?: number }).maxUnavailable !== 1 || (pdb.spec as { unhealthyPodEvictionPolicy?: string }).unhealthyPodEvictionPolicy !== 'AlwaysAllow')
    problem(`PDB ${JSON.stringify(pdb.spec)}`);

  const hpa = objects.find((object) => object.kind === 'HorizontalPodAutoscaler' && (object.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === deployment.metadata.name);
  if (options.autoscaled) {
    const metrics = ((hpa?.spec as { metrics?: Array<Record<string, { name?: string; metric?: { name: string }; target: { type: string } }>> } | undefined)?.metrics ?? []);
    if (hpa === undefined) problem('no HPA');
    if (spec.replicas !== undefined) problem('fixed replicas fight the HPA');
    if (!metrics.some((metric) => metric.resource?.name === 'cpu' && metric.resource.target.type === 'Utilization')) problem('HPA does not scale on CPU utilisation');
    const inflight = metrics.some((metric) => metric.pods?.metric?.name === 'switchyard_inflight_requests' && metric.pods.target.type === 'AverageValue');
    if (inflight !== options.inflight) problem(`HPA in-flight metric ${inflight ? 'present' : 'missing'}`);
  } else if (hpa !== undefined) {
    problem('an HPA although autoscaling is off');
  }

  // Draining: after the preStop sleep the process drains for SWITCHYARD_SHUTDOWN_GRACE_MS and
  // must be done (its own error events sent) before the kubelet's SIGKILL.
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  const preStop = container.lifecycle?.preStop?.exec?.command;
  const preStopSeconds = preStop === undefined ? 0 : Number(preStop[preStop.length - 1]);
  if (target !== 'worker' && (preStop?.[0] !== 'sleep' || !(preStopSeconds >= 5))) problem(`preStop ${JSON.stringify(preStop)} does not keep serving while endpoints update`);
  const drainMs = Number(container.env?.find((entry) => entry.name === 'SWITCHYARD_SHUTDOWN_GRACE_MS')?.value);
  if (!(drainMs > 0)) problem(`SWITCHYARD_SHUTDOWN_GRACE_MS ${drainMs}`);
  if (grace < preStopSeconds + drainMs / 1000 + 5) problem(`terminationGracePeriodSeconds ${grace} < preStop ${preStopSeconds} s + drain ${drainMs / 1000} s + 5 s`);
  // ingress, router and `all` carry client streams: the docs promise 5 minutes of streaming.
  if (['all', 'ingress', 'router'].includes(target) && drainMs < 300_000) problem(`drain ${drainMs} ms is shorter than the promised 5 min stream`);

  const spread = pod.topologySpreadConstraints ?? [];
  for (const key of ['topology.kubernetes.io/zone', 'kubernetes.io/hostname']) {
    const constraint = spread.find((entry) => entry.topologyKey === key);
    if (constraint === undefined || !selects(constraint.labelSelector, podLabels) || !constraint.matchLabelKeys?.includes('pod-template-hash')) problem(`not spread over ${key}`);
  }

  if (pod.securityContext?.runAsNonRoot !== true || pod.securityContext.runAsUser === 0) problem(`pod securityContext ${JSON.stringify(pod.securityContext)}`);
  const security = container.securityContext ?? {};
  if (security.readOnlyRootFilesystem !== true || security.allowPrivilegeEscalation !== false || !security.capabilities?.drop?.includes('ALL'))
    problem(`container securityContext ${JSON.stringify(security)}`);

  const probe = (entry: { httpGet?: { path: string; port: string } } | undefined) => `${entry?.httpGet?.path}@${entry?.httpGet?.port}`;
  if (probe(container.readinessProbe) !== '/readyz@http') problem(`readiness probe ${probe(container.readinessProbe)}`);
  if (probe(container.livenessProbe) !== '/healthz@http') problem(`liveness probe ${probe(container.livenessProbe)}`);
  if (probe(container.startupProbe) !== '/healthz@http') problem(`startup probe ${probe(container.startupProbe)}`);
  if (!container.ports.some((port) => port.name === 'http' && port.containerPort === 8080)) problem('no http port 8080');

  // Secrets only by reference, and only where they are used.
  const env = new Map((container.env ?? []).map((entry) => [entry.name, entry]));
  const fromSecret = (name: string) => env.get(name)?.valueFrom?.secretKeyRef !== undefined;
  if (!fromSecret('REDIS_URL')) problem('REDIS_URL is not a secretKeyRef');
  const loadsConfig = target === 'all' || target === 'catalog';
  for (const name of ['SWITCHYARD_ADMIN_TOKEN', 'OPENAI_API_KEY']) {
    if (loadsConfig && !fromSecret(name)) problem(`${name} is not a secretKeyRef`);
    if (!loadsConfig && env.has(name)) problem(`${name} given to a target that does not load the config`);
  }
  for (const [name, entry] of env) if (/KEY|TOKEN|PASSWORD|SECRET/.test(name) && entry.value !== undefined) problem(`${name} as a plain value`);
  // Both ends of every internal hop hold the internal token; a Secret the release renders holds a real one.
  const hasInternalHop = target === 'ingress' || target === 'router' || target === 'catalog';
  const internalToken = env.get('SWITCHYARD_INTERNAL_TOKEN')?.valueFrom?.secretKeyRef;
  if (hasInternalHop && internalToken === undefined) problem('SWITCHYARD_INTERNAL_TOKEN is not a secretKeyRef');
  if (!hasInternalHop && env.has('SWITCHYARD_INTERNAL_TOKEN')) problem('SWITCHYARD_INTERNAL_TOKEN given to a target without internal hops');
  const rendered = internalToken === undefined ? undefined : named(objects, 'Secret', internalToken.name);
  if (rendered !== undefined && Buffer.from(rendered.data?.[internalToken?.key ?? ''] ?? '', 'base64').length < 32) problem(`the internal token in Secret ${rendered.metadata.name} is missing or short`);

  // Who may connect: the public target is open; the others only to their clients, and to
  // Prometheus only from its own namespace (the catalog's port also serves provider keys).
  const clients = CLIENTS_OF[target];
  if (clients === 'anyone') {
    if (!admitted(objects, target, ATTACKER)) problem('the public target is not open');
  } else {
    for (const client of WORKLOADS) {
      if (admitted(objects, target, switchyardPod(client)) !== clients.includes(client)) problem(`NetworkPolicy ${clients.includes(client) ? 'refuses' : 'admits'} ${client} pods`);
    }
    if (admitted(objects, target, podIn('other-app', { app: 'curl' }))) problem('NetworkPolicy admits any pod');
    if (admitted(objects, target, ATTACKER)) problem('NetworkPolicy admits a pod labelled prometheus in any namespace');
  }
  if (!admitted(objects, target, PROMETHEUS)) problem('Prometheus in the monitoring namespace cannot scrape it');
  return problems;
}

/** The Ingress, HTTPRoute, ServiceMonitor, PrometheusRule and dashboards of a release whose public target is `publicTarget`. */
function edgeAndMonitoringProblems(objects: RenderedObject[], publicTarget: Target, targets: Target[]): string[] {
  const problems: string[] = [];
  const publicService = componentName(publicTarget);

  const ingress = named(objects, 'Ingress', 'sy-switchyard');
  const annotations = ingress?.metadata.annotations ?? {};
  const expected: Labels = {
    'nginx.ingress.kubernetes.io/proxy-buffering': 'off',
    'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
    'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600',
    'nginx.ingress.kubernetes.io/proxy-send-timeout': '3600',
    'nginx.ingress.kubernetes.io/proxy-body-size': '32m',
  };
  for (const [key, value] of Object.entries(expected)) if (String(annotations[key]) !== value) problems.push(`Ingress ${key}=${annotations[key]}`);
  const backends = JSON.stringify(ingress?.spec?.rules ?? []);
  if (!backends.includes(`"name":"${publicService}"`) || !backends.includes('"port":{"name":"http"}')) problems.push(`Ingress backends ${backends}`);

  const route = named(objects, 'HTTPRoute', 'sy-switchyard');
  const rules = (route?.spec as { rules?: Array<{ timeouts?: { request?: string }; backendRefs?: Array<{ name: string; port: number }> }> } | undefined)?.rules ?? [];
  if (rules.length === 0 || !rules.every((rule) => rule.timeouts?.request === '3600s')) problems.push(`HTTPRoute timeouts ${JSON.stringify(rules.map((rule) => rule.timeouts))}`);
  if (!rules.every((rule) => rule.backendRefs?.every((ref) => ref.name === publicService && ref.port === 8080))) problems.push('HTTPRoute backends');

  const monitor = named(objects, 'ServiceMonitor', 'sy-switchyard');
  const monitorSpec = monitor?.spec as { selector: LabelSelector; namespaceSelector?: { matchNames?: string[] }; endpoints: Array<{ port: string; path: string; relabelings?: Array<{ targetLabel?: string }> }> } | undefined;
  for (const target of targets) {
    const service = named(objects, 'Service', componentName(target));
    if (service === undefined || !selects(monitorSpec?.selector, service.metadata.labels ?? {})) problems.push(`ServiceMonitor does not select the ${target} Service`);
  }
  if (!monitorSpec?.namespaceSelector?.matchNames?.includes(NAMESPACE)) problems.push('ServiceMonitor looks in another namespace');
  const endpoint = monitorSpec?.endpoints[0];
  if (endpoint?.port !== 'http' || endpoint.path !== '/metrics' || !endpoint.relabelings?.some((relabeling) => relabeling.targetLabel === 'component'))
    problems.push(`ServiceMonitor endpoint ${JSON.stringify(endpoint)}`);

  const rule = objects.find((object) => object.kind === 'PrometheusRule');
  const rendered = ((rule?.spec as { groups?: Array<{ rules: Array<{ alert?: string; annotations?: Labels }> }> } | undefined)?.groups ?? []).flatMap((group) => group.rules);
  const shipped = ALERTS.groups.flatMap((group) => group.rules).flatMap((entry) => (entry.alert === undefined ? [] : [entry.alert]));
  const renderedAlerts = rendered.flatMap((entry) => (entry.alert === undefined ? [] : [entry.alert]));
  if (JSON.stringify(renderedAlerts) !== JSON.stringify(shipped.filter((alert) => alert !== 'SwitchyardCircuitOpen'))) problems.push(`PrometheusRule alerts ${renderedAlerts.join(', ')}`);
  if (!rendered.every((entry) => entry.alert === undefined || entry.annotations?.runbook_url?.includes('#'))) problems.push('an alert without a runbook_url');

  const dashboards = objects.filter((object) => object.kind === 'ConfigMap' && object.metadata.labels?.grafana_dashboard === '1');
  const shippedDashboards = dashboards.flatMap((object) => Object.keys(object.data ?? {})).sort();
  if (JSON.stringify(shippedDashboards) !== JSON.stringify(DASHBOARDS.sort())) problems.push(`dashboards ConfigMaps ${shippedDashboards.join(', ')}`);
  for (const object of dashboards) {
    for (const [file, text] of Object.entries(object.data ?? {})) {
      if (text !== readFileSync(join(root, 'deploy/grafana/dashboards', file), 'utf8').replace(/\n$/, '')) problems.push(`dashboard ${file} differs from deploy/`);
    }
  }
  return problems;
}

describe('the rendered chart (helm template without helm)', () => {
  describe('microservices', () => {
    const objects = render(production('microservices'));

    it('should render one Deployment, Service, PDB and NetworkPolicy per target, and HPAs for ingress and router', () => {
      const names = (kind: string) => objects.filter((object) => object.kind === kind).map((object) => object.metadata.name).sort();
      const all = WORKLOADS.map(componentName).sort();
      expect(names('Deployment')).toEqual(all);
      expect(names('Service')).toEqual(all);
      expect(names('PodDisruptionBudget')).toEqual(all);
      expect(names('NetworkPolicy')).toEqual(all);
      expect(names('HorizontalPodAutoscaler')).toEqual(['ingress', 'router'].map(componentName));
      expect(objects.every((object) => object.metadata.namespace === undefined || object.metadata.namespace === NAMESPACE)).toBe(true);
    });

    it.each(WORKLOADS)('should give the %s target what production needs', (target) => {
      const autoscaled = target === 'ingress' || target === 'router';
      expect(workloadProblems(objects, target, { autoscaled, inflight: autoscaled })).toEqual([]);
    });

    it('should expose only the ingress: Ingress without buffering, HTTPRoute with stream timeouts, and monitor everything', () => {
      expect(edgeAndMonitoringProblems(objects, 'ingress', WORKLOADS)).toEqual([]);
    });

    it('should point ingresses at the routers and every internal target at the catalog', () => {
      const env = (target: string) =>
        Object.fromEntries(
          ((named(objects, 'Deployment', componentName(target))?.spec as unknown as DeploymentSpec).template.spec.containers[0]?.env ?? []).map((entry) => [entry.name, entry.value]),
        );
      expect(env('ingress').SWITCHYARD_ROUTER_URL).toBe(`http://sy-switchyard-router.${NAMESPACE}.svc:8080`);
      for (const target of ['ingress', 'router', 'worker']) expect(env(target).SWITCHYARD_CATALOG_URL).toBe(`http://sy-switchyard-catalog.${NAMESPACE}.svc:8080`);
    });
  });

  describe('service meshes', () => {
    const appProtocols = (objects: RenderedObject[]) =>
      Object.fromEntries(
        objects
          .filter((object) => object.kind === 'Service')
          .map((object) => [object.metadata.name.replace('sy-switchyard-', ''), (object.spec as { ports: Array<{ appProtocol?: string }> }).ports.map((port) => port.appProtocol)]),
      );

    it('should declare every port http by default, and let the router be opaque TCP so a sidecar passes the hop', () => {
      expect(appProtocols(render(production('microservices')))).toEqual({ ingress: ['http'], router: ['http'], catalog: ['http'], worker: ['http'] });
      const meshed = render(mergeValues(production('microservices'), { targets: { router: { service: { appProtocol: 'tcp' } } } }));
      expect(appProtocols(meshed)).toEqual({ ingress: ['http'], router: ['tcp'], catalog: ['http'], worker: ['http'] });
    });

    it('should refuse an appProtocol that is no protocol name', () => {
      expect(errorsOf(mergeValues(values, { targets: { router: { service: { appProtocol: 'TCP opaque' } } } }))).not.toEqual([]);
    });
  });

  describe('internal token', () => {
    const tokenRefs = (objects: RenderedObject[]) =>
      Object.fromEntries(
        objects
          .filter((object) => object.kind === 'Deployment')
          .map((object) => [
            object.metadata.name.replace('sy-switchyard-', ''),
            (object.spec as unknown as DeploymentSpec).template.spec.containers[0]?.env?.find((entry) => entry.name === 'SWITCHYARD_INTERNAL_TOKEN')?.valueFrom?.secretKeyRef,
          ]),
      );
    const secrets = (objects: RenderedObject[]) => objects.filter((object) => object.kind === 'Secret').map((object) => object.metadata.name);

    it('should generate one Secret in microservices mode by default and give it to ingress, router and catalog', () => {
      const objects = render(production('microservices'));
      const ref = { name: componentName('internal-token'), key: 'internal-token' };
      expect(tokenRefs(objects)).toEqual({ ingress: ref, router: ref, catalog: ref, worker: undefined });
      expect(secrets(objects)).toEqual([ref.name]);
      // The renderer's randAlphaNum is a fixed dummy of the asked length.
      expect(Buffer.from(named(objects, 'Secret', ref.name)?.data?.[ref.key] ?? '', 'base64').toString()).toHaveLength(48);
    });

    it('should use a given Secret instead, and nothing with generate off', () => {
      const given = render(mergeValues(production('microservices'), { internalToken: { secretRef: { name: 'switchyard-internal', key: 'token' } } }));
      const ref = { name: 'switchyard-internal', key: 'token' };
      expect(tokenRefs(given)).toEqual({ ingress: ref, router: ref, catalog: ref, worker: undefined });
      expect(secrets(given)).toEqual([]);
      const none = render(mergeValues(production('microservices'), { internalToken: { generate: false } }));
      expect(tokenRefs(none)).toEqual({ ingress: undefined, router: undefined, catalog: undefined, worker: undefined });
      expect(secrets(none)).toEqual([]);
    });

    it('should leave monolithic mode without one (no internal hop)', () => {
      const objects = render(production('monolithic'));
      expect(tokenRefs(objects)).toEqual({ all: undefined });
      expect(secrets(objects)).toEqual([]);
    });
  });

  describe('monolithic', () => {
    const objects = render(production('monolithic'));

    it('should render the `all` target alone, with what production needs', () => {
      expect(objects.filter((object) => object.kind === 'Deployment').map((object) => object.metadata.name)).toEqual([componentName('all')]);
      expect(workloadProblems(objects, 'all', { autoscaled: true, inflight: true })).toEqual([]);
      expect(edgeAndMonitoringProblems(objects, 'all', ['all'])).toEqual([]);
    });

    it('should keep the defaults (no Redis) at one fixed replica with no HPA', () => {
      const defaults = render({});
      const deployment = named(defaults, 'Deployment', componentName('all'))?.spec as unknown as DeploymentSpec;
      expect(deployment.replicas).toBe(1);
      expect(defaults.some((object) => object.kind === 'HorizontalPodAutoscaler')).toBe(false);
    });
  });

  describe('NetworkPolicy for Prometheus', () => {
    it('should admit Prometheus only from the configured namespace, to every target', () => {
      const objects = render({ mode: 'microservices', redis: { url: 'redis://redis:6379' }, networkPolicy: { metrics: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'observability' } } } } });
      for (const target of WORKLOADS) {
        expect(admitted(objects, target, podIn('observability', { 'app.kubernetes.io/name': 'prometheus' })), target).toBe(true);
        if (target === 'ingress') continue;
        expect(admitted(objects, target, PROMETHEUS), `${target}: another namespace`).toBe(false);
        expect(admitted(objects, target, podIn('observability', { 'app.kubernetes.io/name': 'grafana' })), `${target}: another pod`).toBe(false);
      }
    });

    it('should refuse an empty namespace selector, which would admit every namespace', () => {
      // Maps merge over the defaults, so emptying the selector takes a null.
      expect(() => render({ networkPolicy: { metrics: { namespaceSelector: { matchLabels: null } } } })).toThrow(/schema/);
      const replaced = structuredClone(values) as { networkPolicy: { metrics: { namespaceSelector: unknown } } };
      for (const selector of [{}, { matchLabels: {} }, { matchExpressions: [] }]) {
        replaced.networkPolicy.metrics.namespaceSelector = selector;
        expect(errorsOf(replaced), JSON.stringify(selector)).not.toEqual([]);
      }
    });

    it('should admit nobody but the clients when metrics access is off, and extra peers from metricsFrom', () => {
      const closed = render({ mode: 'microservices', redis: { url: 'redis://redis:6379' }, networkPolicy: { metrics: { enabled: false } } });
      expect(admitted(closed, 'catalog', PROMETHEUS)).toBe(false);
      expect(admitted(closed, 'worker', PROMETHEUS)).toBe(false);
      const extra = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'vm' } }, podSelector: { matchLabels: { app: 'vmagent' } } };
      const opened = render({ mode: 'microservices', redis: { url: 'redis://redis:6379' }, networkPolicy: { metricsFrom: [extra] } });
      expect(admitted(opened, 'router', podIn('vm', { app: 'vmagent' }))).toBe(true);
      expect(admitted(opened, 'router', PROMETHEUS)).toBe(true);
    });
  });

  describe('the checks above fail on a broken chart', () => {
    const microservices = production('microservices');
    const broken: Array<[string, Values, Target, RegExp]> = [
      ['a writable root filesystem', { securityContext: { readOnlyRootFilesystem: false } }, 'router', /container securityContext/],
      ['a root pod', { podSecurityContext: { runAsNonRoot: false } }, 'catalog', /pod securityContext/],
      ['no PDB', { targets: { worker: { podDisruptionBudget: { enabled: false } } } }, 'worker', /no PodDisruptionBudget/],
      ['no in-flight metric', { targets: { router: { autoscaling: { inflight: { enabled: false } } } } }, 'router', /in-flight metric missing/],
      ['a drain shorter than a promised stream', { targets: { ingress: { terminationGracePeriodSeconds: 120 } } }, 'ingress', /shorter than the promised 5 min/],
      ['no preStop sleep', { targets: { router: { preStopSleepSeconds: 0 } } }, 'router', /preStop/],
      ['no spread', { topologySpread: { enabled: false } }, 'ingress', /not spread/],
      ['the admin token as a value', { adminToken: { secretRef: { name: '' } }, targets: { catalog: { extraEnv: [{ name: 'SWITCHYARD_ADMIN_TOKEN', value: 'x' }] } } }, 'catalog', /SWITCHYARD_ADMIN_TOKEN/],
      ['Redis by plain URL', { redis: { secretRef: { name: '' }, url: 'redis://redis:6379' } }, 'router', /REDIS_URL is not a secretKeyRef/],
      ['Prometheus pods of any namespace', { networkPolicy: { metrics: { enabled: false }, metricsFrom: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } } }] } }, 'catalog', /any namespace/],
      ['no NetworkPolicies', { networkPolicy: { enabled: false } }, 'router', /admits ingress pods|admits catalog pods|admits any pod/],
      ['no internal token', { internalToken: { generate: false } }, 'router', /SWITCHYARD_INTERNAL_TOKEN is not a secretKeyRef/],
      ['the internal token given to the worker', { targets: { worker: { extraEnv: [{ name: 'SWITCHYARD_INTERNAL_TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] } } }, 'worker', /target without internal hops/],
    ];
    it.each(broken)('should report %s', (_label, override, target, message) => {
      const objects = render(mergeValues(microservices, override));
      const autoscaled = target === 'ingress' || target === 'router';
      expect(workloadProblems(objects, target, { autoscaled, inflight: autoscaled }).join('\n')).toMatch(message);
    });

    it('should report buffering, short timeouts and missing monitoring', () => {
      const objects = render(
        mergeValues(microservices, {
          ingress: { streamingAnnotations: false },
          httpRoute: { timeouts: { request: '60s' } },
          monitoring: { prometheusRule: { disabledAlerts: [] }, grafanaDashboards: { labels: { grafana_dashboard: '0' } } },
        }),
      );
      const problems = edgeAndMonitoringProblems(objects, 'ingress', WORKLOADS).join('\n');
      for (const expected of [/proxy-buffering/, /HTTPRoute timeouts/, /PrometheusRule alerts/, /dashboards ConfigMaps/]) expect(problems).toMatch(expected);
    });

    it("should stop on the chart's own checks, as helm install would", () => {
      expect(() => render({ mode: 'microservices' })).toThrow(ChartFailure);
      expect(() => render({ targets: { all: { replicas: 3 } } })).toThrow(/keep targets.all.replicas=1/);
      expect(() => render({ targets: { router: { terminationGracePeriodSeconds: 12 } }, mode: 'microservices', redis: { deploy: true } })).toThrow(/terminationGracePeriodSeconds must exceed/);
    });
  });
});
