// Static checks of the Helm chart (helm/switchyard), the image recipe (deploy/Dockerfile) and
// the dashboard/alert sync, fast enough for every test run. Where a `helm` binary is on PATH,
// `helm lint` and `helm template` run too; elsewhere those tests are skipped with a message.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseConfig } from '@switchyard/config';
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, parseAllDocuments, parseDocument, type YAMLMap } from 'yaml';
import {
  chart,
  ciFiles,
  ciValues,
  errorsOf,
  isFreeForm,
  isPlainObject,
  mergeValues,
  pathExists,
  read,
  resolve,
  root,
  schema,
  templateFiles,
  values,
  type Schema,
  type Values,
} from './support/chart.ts';
import { valuesReferences } from './support/values-references.ts';

const templates = templateFiles().map((file) => ({ file, text: read(file) }));
const allTemplateText = templates.map((template) => template.text).join('\n');

function walkSchema(node: Schema, path: string, visit: (node: Schema, path: string) => void): void {
  visit(node, path);
  for (const [name, child] of Object.entries(node.properties ?? {})) walkSchema(child, `${path}.${name}`, visit);
  if (node.items !== undefined) walkSchema(node.items, `${path}[]`, visit);
  if (typeof node.additionalProperties === 'object') walkSchema(node.additionalProperties, `${path}.*`, visit);
  for (const [name, child] of Object.entries(node.definitions ?? {})) walkSchema(child, `#/definitions/${name}`, visit);
}

describe('values.schema.json', () => {
  it('should close every object that declares its properties (additionalProperties: false)', () => {
    const open: string[] = [];
    walkSchema(schema, '', (node, path) => {
      if (node.properties !== undefined && node.additionalProperties !== false) open.push(path || '(root)');
    });
    expect(open).toEqual([]);
  });

  it('should describe every property', () => {
    const undocumented: string[] = [];
    walkSchema(schema, '', (node, path) => {
      for (const [name, child] of Object.entries(node.properties ?? {})) {
        if (!child.description) undocumented.push(`${path}.${name}`);
      }
    });
    expect(undocumented).toEqual([]);
  });

  it('should accept values.yaml', () => {
    expect(errorsOf(values)).toEqual([]);
  });

  it('should have the ci values files the docs name', () => {
    expect(ciFiles).toEqual(expect.arrayContaining(['monolithic-values.yaml', 'microservices-values.yaml', 'production-example-values.yaml']));
  });

  it.each(ciFiles)('should accept ci/%s, alone and merged over values.yaml', (name) => {
    expect(errorsOf(ciValues(name))).toEqual([]);
    expect(errorsOf(mergeValues(values, ciValues(name)))).toEqual([]);
  });

  const broken: Array<[string, Values, string]> = [
    ['an unknown top-level key', { replicaCount: 3 }, ''],
    ['a typo in a nested key', { targets: { router: { replica: 3 } } }, '/targets/router'],
    ['a typo in a deeply nested key', { targets: { ingress: { autoscaling: { inflight: { target: '10' } } } } }, '/targets/ingress/autoscaling/inflight'],
    ['a wrong type', { targets: { ingress: { replicas: 'two' } } }, '/targets/ingress/replicas'],
    ['a bad mode', { mode: 'hybrid' }, '/mode'],
    ['a boolean annotation value', { targets: { all: { podAnnotations: { 'prometheus.io/scrape': true } } } }, '/targets/all/podAnnotations'],
    ['a secretEnv entry without its Secret', { secretEnv: [{ name: 'OPENAI_API_KEY' }] }, '/secretEnv/0'],
    ['a bad environment variable name', { secretEnv: [{ name: 'OPENAI-KEY', secretRef: { name: 's', key: 'k' } }] }, '/secretEnv/0/name'],
    ['a Redis URL without a scheme', { redis: { url: 'redis.internal:6379' } }, '/redis/url'],
    ['an image digest that is not sha256', { image: { digest: 'latest' } }, '/image/digest'],
    ['a bad service type', { targets: { router: { service: { type: 'Internal' } } } }, '/targets/router/service/type'],
    ['a bad resource quantity', { targets: { worker: { resources: { requests: { memory: 'lots' } } } } }, '/targets/worker/resources/requests/memory'],
    ['a typo under resources', { targets: { worker: { resources: { request: { cpu: '1' } } } } }, '/targets/worker/resources'],
    ['a bad percentage', { rollingUpdate: { maxSurge: '25 percent' } }, '/rollingUpdate/maxSurge'],
    ['a bad Prometheus duration', { monitoring: { serviceMonitor: { interval: '30 seconds' } } }, '/monitoring/serviceMonitor/interval'],
    ['an internal token given as a value', { internalToken: { value: 'secret' } }, '/internalToken'],
    ['an internal token Secret without a key', { internalToken: { secretRef: { name: 's', key: '' } } }, '/internalToken/secretRef/key'],
  ];

  it.each(broken)('should reject %s', (_label, override, instancePath) => {
    const errors = errorsOf(mergeValues(values, override));
    expect(errors.length).toBeGreaterThan(0);
    // The error sits at the bad field, or at the object that refuses an unknown key.
    const paths = errors.map((error) => error.instancePath);
    expect(paths.some((path) => path === instancePath || path.startsWith(`${instancePath}/`)), paths.join(', ')).toBe(true);
  });
});

describe('templates', () => {
  // Every path a template reads, through `.Values.a.b` or an alias of a part of it (a variable,
  // a `with` or `range` dot, an `index` by the target): `$config.preStopSleepSecond` would render
  // as empty and pass `helm lint`, so only this check catches it.
  const missingReferences = (sources: Array<{ name: string; text: string }>): string[] => [
    ...new Set(
      valuesReferences(sources)
        .filter((reference) => !pathExists(reference.path))
        .map((reference) => `${reference.template}:${reference.line}: .Values.${reference.path.join('.')}`),
    ),
  ];
  const chartSources = templates.map(({ file, text }) => ({ name: relative(chart, file), text }));

  it('should only reference .Values paths that values.yaml defines (or that lie under a free-form map), aliases included', () => {
    const references = valuesReferences(chartSources);
    const paths = new Set(references.map((reference) => reference.path.join('.')));
    // Each way of reaching values is followed, not only `.Values.a.b`.
    expect([...paths]).toEqual(
      expect.arrayContaining([
        'targets.*.preStopSleepSeconds', // $config := index $root.Values.targets $target
        'targets.*.service.port', // (index .Values.targets $target).service.port, and .root.Values in helpers
        'monitoring.serviceMonitor.interval', // $config := .Values.monitoring.serviceMonitor
        'secretEnv.[].secretRef.name', // range $root.Values.secretEnv, then .secretRef.name
        'ingress.hosts.[].paths.[].pathType', // nested ranges
        'redis.server.persistence.size', // $server := .Values.redis.server
      ]),
    );
    expect(paths.size).toBeGreaterThan(100);
    expect(missingReferences(chartSources)).toEqual([]);
  });

  const deployment = chartSources.find((source) => source.name === 'templates/deployment.yaml') as { name: string; text: string };
  const typos: Array<[string, string, string, string]> = [
    ['a variable bound by index', '$config.preStopSleepSeconds }}"]', '$config.preStopSleepSecond }}"]', '.Values.targets.*.preStopSleepSecond'],
    ['a range item', 'name: {{ .secretRef.name }}', 'name: {{ .secretRef.nam }}', '.Values.secretEnv.[].secretRef.nam'],
    ['a with dot', '{{- with $config.podLabels }}', '{{- with $config.podLabel }}', '.Values.targets.*.podLabel'],
    ['a nested field of a variable', '$config.autoscaling.enabled }}', '$config.autoscaling.enable }}', '.Values.targets.*.autoscaling.enable'],
    ['a root variable', '$root.Values.probes.startup.periodSeconds', '$root.Values.probes.start.periodSeconds', '.Values.probes.start'],
  ];
  it.each(typos)('should fail on a typo through %s', (_label, original, typo, reported) => {
    expect(deployment.text).toContain(original);
    const broken = { name: deployment.name, text: deployment.text.replace(original, typo) };
    const missing = missingReferences([broken]);
    expect(missing.some((entry) => entry.endsWith(reported)), missing.join('\n')).toBe(true);
  });

  it('should fail on a typo through a monitoring alias and through a parenthesised index', () => {
    const serviceMonitor = chartSources.find((source) => source.name === 'templates/servicemonitor.yaml') as { name: string; text: string };
    expect(missingReferences([{ name: serviceMonitor.name, text: serviceMonitor.text.replace('$config.scrapeTimeout', '$config.scrapeTimeOut') }])).toEqual([
      expect.stringMatching(/\.Values\.monitoring\.serviceMonitor\.scrapeTimeOut$/),
    ]);
    const broken = '{{- range $t := list "ingress" }}{{ (index $.Values.targets $t).service.prot }}{{ end }}{{ (index .Values.targets "router").servic.port }}';
    expect(missingReferences([{ name: 'broken.yaml', text: broken }])).toEqual([
      'broken.yaml:1: .Values.targets.*.service.prot',
      'broken.yaml:1: .Values.targets.router.servic',
      'broken.yaml:1: .Values.targets.router.servic.port',
    ]);
  });

  it('should use every key of values.yaml somewhere (no dead settings)', () => {
    const unused: string[] = [];
    const visit = (node: Schema, value: unknown, path: string[]) => {
      node = resolve(node);
      if (isFreeForm(node) || !isPlainObject(value)) return;
      for (const [key, child] of Object.entries(value)) {
        if (path.length === 0 && key === 'global') continue; // for parent charts, by definition unread
        const used = new RegExp(`(?<![A-Za-z0-9_])${key}(?![A-Za-z0-9_])`).test(allTemplateText);
        if (!used) unused.push([...path, key].join('.'));
        const childSchema = node.properties?.[key];
        if (childSchema !== undefined) visit(childSchema, child, [...path, key]);
      }
    };
    visit(schema, values, []);
    expect(unused).toEqual([]);
  });

  it('should only set environment variables that the Switchyard code reads', () => {
    const sources = ['services', 'libs']
      .flatMap((folder) => templateFilesOf(join(root, folder)))
      .map((file) => read(file))
      .join('\n');
    const names = new Set([...allTemplateText.matchAll(/- name: ([A-Z][A-Z0-9_]+)\n/g)].map((match) => match[1] ?? ''));
    expect(names).toContain('SWITCHYARD_SHUTDOWN_GRACE_MS');
    expect(names).toContain('SWITCHYARD_INTERNAL_TOKEN');
    const unread = [...names].filter((name) => !sources.includes(name));
    expect(unread).toEqual([]);
  });
});

function templateFilesOf(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = join(directory, entry.name);
    return entry.isDirectory() ? templateFilesOf(path) : entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('values.yaml', () => {
  it('should document every key with a comment (except inside free-form maps and resources)', () => {
    const document = parseDocument(read(join(chart, 'values.yaml')));
    const undocumented: string[] = [];
    const visit = (map: YAMLMap, node: Schema, path: string[]) => {
      map.items.forEach((pair, index) => {
        const key = isScalar(pair.key) ? String(pair.key.value) : '?';
        const keyComment = isScalar(pair.key) ? pair.key.commentBefore : undefined;
        const inlineComment = isScalar(pair.value) ? pair.value.comment : undefined;
        const firstKeyComment = index === 0 ? (map.commentBefore ?? (path.length === 0 ? document.commentBefore : undefined)) : undefined;
        if (!keyComment && !inlineComment && !firstKeyComment) undocumented.push([...path, key].join('.'));
        const childSchema = node.properties?.[key];
        if (childSchema === undefined || key === 'resources') return;
        const resolved = resolve(childSchema);
        if (!isFreeForm(resolved) && isMap(pair.value)) visit(pair.value, resolved, [...path, key]);
      });
    };
    if (!isMap(document.contents)) throw new Error('values.yaml is not a map');
    visit(document.contents, schema, []);
    expect(undocumented).toEqual([]);
  });
});

describe('catalog values', () => {
  // `${VAR}` references resolve to a placeholder long enough to pass as a key.
  const check = (label: string, valuesOf: Values) => {
    const text = JSON.stringify(valuesOf.catalog ?? {});
    const env = Object.fromEntries([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => [match[1], `placeholder-${'x'.repeat(32)}`]));
    return parseConfig(JSON.stringify(valuesOf.catalog ?? {}), label, env);
  };

  it('should pass the Switchyard config schema in values.yaml and every ci file', () => {
    expect(() => check('values.yaml', values)).not.toThrow();
    for (const name of ciFiles) expect(() => check(name, mergeValues(values, ciValues(name))), name).not.toThrow();
  });

  it('should give every ${VAR} of a microservices catalog a secretEnv entry, and use no generated keys', () => {
    for (const name of ciFiles) {
      const merged = mergeValues(values, ciValues(name));
      if (merged.mode !== 'microservices') continue;
      const text = JSON.stringify(merged.catalog);
      const referenced = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]);
      const provided = ((merged.secretEnv as Array<{ name: string }> | undefined) ?? []).map((entry) => entry.name);
      expect(referenced.filter((variable) => !provided.includes(variable ?? '')), name).toEqual([]);
      // The catalog target refuses `generate: true` keys (they are for the one-process demo).
      expect(text, name).not.toContain('"generate":true');
    }
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = read(join(root, 'deploy/Dockerfile'));

  it('should copy the package.json of every workspace before npm ci (else the lockfile install fails)', () => {
    const workspaces = ['libs', 'services'].flatMap((folder) =>
      readdirSync(join(root, folder))
        .filter((name) => existsSync(join(root, folder, name, 'package.json')))
        .map((name) => `${folder}/${name}/package.json`),
    );
    const copied = [...dockerfile.matchAll(/^COPY ((?:libs|services)\/[^/\s]+\/package\.json) /gm)].map((match) => match[1]);
    expect(copied.sort()).toEqual(workspaces.sort());
    expect(dockerfile.indexOf('npm ci --omit=dev')).toBeGreaterThan(dockerfile.lastIndexOf('/package.json '));
  });

  it('should run the CLI as a non-root user with `all` as the default target', () => {
    expect(dockerfile).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/m);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24[.\d]*-slim/m);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toContain('ENTRYPOINT ["node", "bin/switchyard.js"]');
    expect(dockerfile).toContain('CMD ["all"]');
    expect(dockerfile).toContain('EXPOSE 8080');
  });
});

describe('scripts/sync-dashboards.mjs', () => {
  const run = (...options: string[]) =>
    spawnSync(process.execPath, [join(root, 'scripts/sync-dashboards.mjs'), ...options], { encoding: 'utf8' });

  it('should find the chart copies of the dashboards and alerts in sync (--check)', () => {
    const result = run('--check');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('should report missing, different and stale copies, and fix them', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'sync-dashboards-'));
    try {
      mkdirSync(join(scratch, 'deploy/grafana/dashboards'), { recursive: true });
      mkdirSync(join(scratch, 'deploy/prometheus'), { recursive: true });
      writeFileSync(join(scratch, 'deploy/grafana/dashboards/overview.json'), '{"title":"Overview"}\n');
      writeFileSync(join(scratch, 'deploy/prometheus/alerts.yaml'), 'groups: []\n');
      expect(run('--check', '--root', scratch).status).toBe(1);
      expect(run('--root', scratch).status).toBe(0);
      expect(run('--check', '--root', scratch).status).toBe(0);
      expect(read(join(scratch, 'helm/switchyard/files/alerts.yaml'))).toBe('groups: []\n');

      writeFileSync(join(scratch, 'deploy/grafana/dashboards/overview.json'), '{"title":"Overview 2"}\n');
      expect(run('--check', '--root', scratch).stderr).toContain('differs');
      rmSync(join(scratch, 'deploy/grafana/dashboards/overview.json'));
      expect(run('--check', '--root', scratch).stderr).toContain('stale');
      expect(run('--root', scratch).status).toBe(0);
      expect(existsSync(join(scratch, 'helm/switchyard/dashboards/overview.json'))).toBe(false);

      writeFileSync(join(scratch, 'deploy/grafana/dashboards/broken.json'), '{');
      expect(run('--check', '--root', scratch).status).toBe(2);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

const helm = spawnSync('helm', ['version', '--short'], { encoding: 'utf8' });
const helmAvailable = helm.status === 0;
if (!helmAvailable) {
  console.info('helm is not on PATH: skipping `helm lint` and `helm template` of helm/switchyard (schema and template checks above still ran).');
}

describe.runIf(helmAvailable)('helm lint and helm template', () => {
  const kubeVersion = '1.31.0';
  const monitoringFilesPresent =
    existsSync(join(chart, 'files/alerts.yaml')) &&
    existsSync(join(chart, 'dashboards')) &&
    readdirSync(join(chart, 'dashboards')).some((name) => name.endsWith('.json'));
  const needsMonitoringFiles = (name: string) => {
    const monitoring = mergeValues(values, ciValues(name)).monitoring as { prometheusRule: { enabled: boolean }; grafanaDashboards: { enabled: boolean } };
    return monitoring.prometheusRule.enabled || monitoring.grafanaDashboards.enabled;
  };
  const helmRun = (...options: string[]) => spawnSync('helm', options, { encoding: 'utf8', cwd: root });
  // `helm lint --kube-version` is recent; older helms lint against their built-in version.
  // (The body of a skipped describe still runs at collection: only ask helm when it exists.)
  const lintHelp = helmAvailable ? (helmRun('lint', '--help').stdout ?? '') : '';
  const lintKubeVersion = lintHelp.includes('--kube-version') ? ['--kube-version', kubeVersion] : [];
  const render = (...options: string[]) => {
    const result = helmRun('template', 'sy', chart, '--namespace', 'gateway', '--kube-version', kubeVersion, ...options);
    expect(result.status, result.stderr).toBe(0);
    return parseAllDocuments(result.stdout)
      .map((document) => document.toJS() as { kind: string; metadata: { name: string }; spec?: Record<string, unknown> } | null)
      .filter((document) => document !== null);
  };

  it('should lint with the default values', () => {
    const result = helmRun('lint', chart, '--strict', ...lintKubeVersion);
    expect(result.stdout + result.stderr).toMatch(/0 chart\(s\) failed/);
  });

  it.each(ciFiles)('should lint and render with ci/%s', (name) => {
    if (needsMonitoringFiles(name) && !monitoringFilesPresent) {
      console.info(`ci/${name} enables alerts or dashboards, which deploy/ does not provide yet: skipped.`);
      return;
    }
    const file = join(chart, 'ci', name);
    const lint = helmRun('lint', chart, '--strict', ...lintKubeVersion, '--values', file);
    expect(lint.stdout + lint.stderr).toMatch(/0 chart\(s\) failed/);
    const documents = render('--values', file);
    const deployments = documents.filter((document) => document.kind === 'Deployment').map((document) => document.metadata.name);
    const mode = mergeValues(values, ciValues(name)).mode;
    expect(deployments.sort()).toEqual(
      mode === 'monolithic' ? ['sy-switchyard-all'] : expect.arrayContaining(['sy-switchyard-catalog', 'sy-switchyard-ingress', 'sy-switchyard-router']),
    );
  });

  it('should render both modes from the defaults', () => {
    const monolithic = render();
    expect(monolithic.filter((document) => document.kind === 'Deployment')).toHaveLength(1);
    const microservices = render('--set', 'mode=microservices', '--set', 'redis.url=redis://redis:6379');
    expect(microservices.filter((document) => document.kind === 'Deployment').map((document) => document.metadata.name).sort()).toEqual([
      'sy-switchyard-catalog',
      'sy-switchyard-ingress',
      'sy-switchyard-router',
      'sy-switchyard-worker',
    ]);
  });

  it('should refuse values the schema or the chart checks reject', () => {
    for (const options of [
      ['--set', 'mode=hybrid'],
      ['--set', 'targets.router.replica=3'],
      ['--set', 'mode=microservices'], // no Redis
      ['--set', 'targets.all.replicas=3'], // monolithic, no Redis
    ]) {
      const result = helmRun('template', 'sy', chart, '--kube-version', kubeVersion, ...options);
      expect(result.status, options.join(' ')).not.toBe(0);
    }
  });

  it('should render the alerts and dashboards when the chart holds them', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'switchyard-chart-'));
    try {
      cpSync(chart, scratch, { recursive: true });
      mkdirSync(join(scratch, 'files'), { recursive: true });
      mkdirSync(join(scratch, 'dashboards'), { recursive: true });
      writeFileSync(
        join(scratch, 'files/alerts.yaml'),
        'groups:\n  - name: t\n    rules:\n      - alert: A\n        expr: vector(1)\n        annotations: { summary: "{{ $value }}" }\n      - alert: B\n        expr: vector(1)\n',
      );
      writeFileSync(join(scratch, 'dashboards/overview.json'), '{"title":"Overview"}\n');
      const result = spawnSync(
        'helm',
        ['template', 'sy', scratch, '--kube-version', kubeVersion, '--set', 'monitoring.prometheusRule.enabled=true', '--set', 'monitoring.grafanaDashboards.enabled=true', '--set', 'monitoring.prometheusRule.disabledAlerts={B}'],
        { encoding: 'utf8' },
      );
      expect(result.status, result.stderr).toBe(0);
      const documents = parseAllDocuments(result.stdout).map((document) => document.toJS() as { kind: string; data?: Record<string, string>; spec?: { groups: Array<{ rules: Array<{ alert: string; annotations?: Record<string, string> }> }> } } | null);
      const rule = documents.find((document) => document?.kind === 'PrometheusRule');
      expect(rule?.spec?.groups[0]?.rules.map((entry) => entry.alert)).toEqual(['A']);
      expect(rule?.spec?.groups[0]?.rules[0]?.annotations?.summary).toBe('{{ $value }}');
      expect(documents.some((document) => document?.kind === 'ConfigMap' && document.data?.['overview.json'] !== undefined)).toBe(true);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});
