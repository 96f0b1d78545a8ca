// Renders a Helm chart the way `helm template` does, for the functions this chart uses (Helm's
// own plus the Sprig ones), so tests can check the objects it produces on machines without
// helm. Unknown functions fail loudly: a template that starts using one needs it added here.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { parseTemplate, type Operand, type Pipeline, type TemplateNode } from './go-template.ts';

type Scope = Map<string, unknown>;
interface Context {
  dot: unknown;
  scopes: Scope[];
}

/** A `fail` call in a template: what `helm install` would refuse with. */
export class ChartFailure extends Error {}

export function isTruthy(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function toText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function access(value: unknown, fields: string[]): unknown {
  let current = value;
  for (const field of fields) current = isMap(current) ? current[field] : undefined;
  return current;
}

/** Go's `%v`/`%s`/`%d` for the values a chart formats. */
function sprintf(format: string, args: unknown[]): string {
  let next = 0;
  return format.replace(/%([-+# 0]*\d*(?:\.\d+)?)([svdq%])/g, (_all, _flags: string, verb: string) => {
    if (verb === '%') return '%';
    const value = args[next++];
    return verb === 'q' ? JSON.stringify(toText(value)) : toText(value);
  });
}

function toYaml(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  return stringify(value, { lineWidth: 0, sortMapEntries: true }).replace(/\n$/, '');
}

function deepMerge(destination: Record<string, unknown>, source: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(source)) {
    const current = destination[key];
    if (isMap(current) && isMap(value)) deepMerge(current, value);
    else if (!(key in destination) || current === undefined || current === null) destination[key] = structuredClone(value);
  }
  return destination;
}

export class TemplateRenderer {
  private readonly defines = new Map<string, TemplateNode[]>();
  private readonly functions: Record<string, (...args: unknown[]) => unknown>;

  constructor() {
    const int = (value: unknown) => Math.trunc(Number(value ?? 0)) || 0;
    const indent = (count: unknown, text: unknown) =>
      toText(text)
        .split('\n')
        .map((line) => ' '.repeat(int(count)) + line)
        .join('\n');
    const equal = (a: unknown, b: unknown) => a === b || (a == null && b == null);
    this.functions = {
      include: (name, data) => this.renderNamed(toText(name), data),
      default: (fallback, value) => (isTruthy(value) ? value : fallback),
      required: (message, value) => {
        if (!isTruthy(value)) throw new ChartFailure(toText(message));
        return value;
      },
      fail: (message) => {
        throw new ChartFailure(toText(message));
      },
      trunc: (length, text) => toText(text).slice(0, int(length)),
      trimSuffix: (suffix, text) => (toText(text).endsWith(toText(suffix)) ? toText(text).slice(0, -toText(suffix).length || undefined) : toText(text)),
      contains: (needle, text) => toText(text).includes(toText(needle)),
      replace: (from, to, text) => toText(text).replaceAll(toText(from), toText(to)),
      lower: (text) => toText(text).toLowerCase(),
      base: (path) => basename(toText(path)),
      printf: (format, ...args) => sprintf(toText(format), args),
      print: (...args) => args.map(toText).join(''),
      quote: (...args) => args.filter((value) => value != null).map((value) => JSON.stringify(toText(value))).join(' '),
      toYaml,
      fromYaml: (text) => (parse(toText(text)) as unknown) ?? {},
      nindent: (count, text) => `\n${indent(count, text)}`,
      indent,
      sha256sum: (text) => createHash('sha256').update(toText(text)).digest('hex'),
      eq: (first, ...others) => others.some((other) => equal(first, other)),
      ne: (a, b) => !equal(a, b),
      gt: (a, b) => Number(a) > Number(b),
      ge: (a, b) => Number(a) >= Number(b),
      lt: (a, b) => Number(a) < Number(b),
      le: (a, b) => Number(a) <= Number(b),
      not: (value) => !isTruthy(value),
      int,
      add: (...values) => values.reduce<number>((sum, value) => sum + int(value), 0),
      add1: (value) => int(value) + 1,
      sub: (a, b) => int(a) - int(b),
      mul: (...values) => values.reduce<number>((product, value) => product * int(value), 1),
      index: (collection, ...keys) => keys.reduce<unknown>((current, key) => (Array.isArray(current) ? current[int(key)] : isMap(current) ? current[toText(key)] : undefined), collection),
      dict: (...pairs) => Object.fromEntries(Array.from({ length: pairs.length / 2 }, (_, index) => [toText(pairs[index * 2]), pairs[index * 2 + 1]])),
      list: (...items) => items,
      append: (items, item) => [...((items as unknown[] | undefined) ?? []), item],
      has: (needle, items) => Array.isArray(items) && items.some((item) => equal(item, needle)),
      splitList: (separator, text) => toText(text).split(toText(separator)),
      set: (map, key, value) => {
        (map as Record<string, unknown>)[toText(key)] = value;
        return map;
      },
      deepCopy: (value) => structuredClone(value),
      merge: (destination, ...sources) => sources.reduce<Record<string, unknown>>((merged, source) => deepMerge(merged, (source as Record<string, unknown>) ?? {}), destination as Record<string, unknown>),
      empty: (value) => !isTruthy(value),
      b64enc: (text) => Buffer.from(toText(text)).toString('base64'),
      // No cluster here, as with `helm template`: every lookup finds nothing.
      lookup: () => ({}),
      // Deterministic, so renders compare equal; only the length matters to the chart.
      randAlphaNum: (length) => 'x'.repeat(int(length)),
    };
  }

  addTemplate(name: string, source: string): TemplateNode[] {
    const parsed = parseTemplate(source, name);
    for (const [defined, body] of parsed.defines) this.defines.set(defined, body);
    this.defines.set(name, parsed.nodes);
    return parsed.nodes;
  }

  renderNamed(name: string, data: unknown): string {
    const nodes = this.defines.get(name);
    if (nodes === undefined) throw new Error(`no template named ${name}`);
    return this.renderNodes(nodes, { dot: data, scopes: [new Map([['', data]])] });
  }

  private renderNodes(nodes: TemplateNode[], context: Context): string {
    let output = '';
    for (const node of nodes) {
      switch (node.kind) {
        case 'text':
          output += node.text;
          break;
        case 'output': {
          const value = this.evaluatePipeline(node.pipeline, context);
          if (node.pipeline.variables.length === 0) output += toText(value);
          break;
        }
        case 'if':
        case 'with': {
          let taken = false;
          for (const branch of node.branches) {
            context.scopes.push(new Map());
            const value = this.evaluatePipeline(branch.pipeline, context);
            if (isTruthy(value)) {
              output += this.renderNodes(branch.body, node.kind === 'with' ? { dot: value, scopes: context.scopes } : context);
              taken = true;
            }
            context.scopes.pop();
            if (taken) break;
          }
          if (!taken) output += this.renderScoped(node.otherwise, context);
          break;
        }
        case 'range': {
          const { variables, commands } = node.pipeline;
          const collection = this.evaluatePipeline({ variables: [], assign: false, commands }, context);
          const entries: Array<[unknown, unknown]> = Array.isArray(collection)
            ? collection.map((item, index) => [index, item])
            : isMap(collection)
              ? Object.keys(collection)
                  .sort()
                  .map((key) => [key, collection[key]])
              : [];
          for (const [key, item] of entries) {
            const scope: Scope = new Map();
            if (variables.length === 1) scope.set(variables[0] as string, item);
            if (variables.length === 2) scope.set(variables[0] as string, key).set(variables[1] as string, item);
            context.scopes.push(scope);
            output += this.renderNodes(node.body, { dot: item, scopes: context.scopes });
            context.scopes.pop();
          }
          if (entries.length === 0) output += this.renderScoped(node.otherwise, context);
          break;
        }
        case 'template':
          output += this.renderNamed(node.name, node.pipeline === undefined ? undefined : this.evaluatePipeline(node.pipeline, context));
          break;
      }
    }
    return output;
  }

  private renderScoped(nodes: TemplateNode[], context: Context): string {
    context.scopes.push(new Map());
    try {
      return this.renderNodes(nodes, context);
    } finally {
      context.scopes.pop();
    }
  }

  private variable(name: string, context: Context): unknown {
    for (let index = context.scopes.length - 1; index >= 0; index--) {
      const scope = context.scopes[index] as Scope;
      if (scope.has(name)) return scope.get(name);
    }
    throw new Error(`undefined variable $${name}`);
  }

  private evaluatePipeline(pipeline: Pipeline, context: Context): unknown {
    let value: unknown;
    pipeline.commands.forEach((command, index) => {
      value = this.evaluateCommand(command, context, index === 0 ? [] : [value]);
    });
    const [name] = pipeline.variables;
    if (name !== undefined) {
      const scopes = pipeline.assign ? context.scopes.filter((scope) => scope.has(name)) : [context.scopes[context.scopes.length - 1]];
      const scope = scopes[scopes.length - 1];
      if (scope === undefined) throw new Error(`assignment to undeclared $${name}`);
      scope.set(name, value);
    }
    return value;
  }

  private evaluateCommand(command: Operand[], context: Context, piped: unknown[]): unknown {
    const [head, ...rest] = command as [Operand, ...Operand[]];
    if (head.kind === 'function') {
      // `and` / `or` stop at the first operand that decides them, as in Go 1.18+.
      if (head.name === 'and' || head.name === 'or') {
        let value: unknown;
        for (const operand of rest) {
          value = this.evaluateOperand(operand, context);
          if (isTruthy(value) === (head.name === 'or')) return value;
        }
        return piped.length > 0 ? piped[0] : value;
      }
      const fn = this.functions[head.name];
      if (fn === undefined) throw new Error(`function ${head.name} is not implemented by the test renderer`);
      return fn(...rest.map((operand) => this.evaluateOperand(operand, context)), ...piped);
    }
    const value = this.evaluateOperand(head, context);
    // A method at the end of a field chain (`.Files.Get "x"`).
    if (typeof value === 'function') return (value as (...args: unknown[]) => unknown)(...rest.map((operand) => this.evaluateOperand(operand, context)), ...piped);
    if (rest.length > 0 || piped.length > 0) throw new Error('arguments given to a value that is not a function');
    return value;
  }

  private evaluateOperand(operand: Operand, context: Context): unknown {
    switch (operand.kind) {
      case 'literal':
        return operand.value;
      case 'field':
        return this.fieldChain(context.dot, operand.fields);
      case 'variable':
        return this.fieldChain(this.variable(operand.name, context), operand.fields);
      case 'pipeline':
        return access(this.evaluatePipeline(operand.pipeline, context), operand.fields);
      case 'function':
        return this.evaluateCommand([operand], context, []);
    }
  }

  private fieldChain(value: unknown, fields: string[]): unknown {
    let current = value;
    for (const field of fields) {
      const next = isMap(current) ? current[field] : undefined;
      current = typeof next === 'function' ? (next as (...args: unknown[]) => unknown).bind(current) : next;
    }
    return current;
  }
}

export interface RenderedObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  /** The template file it came from, relative to the chart. */
  source: string;
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(directory, entry.name)) : [join(directory, entry.name)],
  );
}

/**
 * `helm template <release> <chart> --namespace <namespace>` with these (already merged and
 * validated) values: every object of every manifest template, NOTES.txt left out.
 */
export function renderChart(chart: string, values: Record<string, unknown>, release = { name: 'sy', namespace: 'gateway' }): RenderedObject[] {
  const metadata = parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as { name: string; version: string; appVersion: string };
  const renderer = new TemplateRenderer();
  const templates = filesUnder(join(chart, 'templates'))
    .map((file) => ({ file, name: `${metadata.name}/${relative(chart, file)}` }))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const { file, name } of templates) renderer.addTemplate(name, readFileSync(file, 'utf8'));
  const chartFiles = filesUnder(chart).map((file) => relative(chart, file));
  const root = {
    Values: values,
    Release: { Name: release.name, Namespace: release.namespace, Service: 'Helm', IsInstall: true, IsUpgrade: false, Revision: 1 },
    Chart: { Name: metadata.name, Version: metadata.version, AppVersion: metadata.appVersion },
    Template: { BasePath: `${metadata.name}/templates` },
    Capabilities: { KubeVersion: { Version: 'v1.31.0' } },
    Files: {
      Get: (path: unknown) => {
        try {
          return readFileSync(join(chart, String(path)), 'utf8');
        } catch {
          return '';
        }
      },
      Glob: (pattern: unknown) => {
        const expression = new RegExp(`^${String(pattern).replaceAll('.', '\\.').replaceAll('**', '.+').replaceAll('*', '[^/]*')}$`);
        return Object.fromEntries(chartFiles.filter((file) => expression.test(file)).map((file) => [file, readFileSync(join(chart, file), 'utf8')]));
      },
    },
  };
  return templates
    .filter(({ name }) => !basename(name).startsWith('_') && !name.endsWith('NOTES.txt'))
    .flatMap(({ name }) => {
      const text = renderer.renderNamed(name, root);
      return parseAllDocuments(text)
        .map((document) => {
          if (document.errors.length > 0) throw new Error(`${name} renders invalid YAML: ${document.errors[0]?.message}\n${text}`);
          return document.toJS() as Omit<RenderedObject, 'source'> | null;
        })
        .filter((object) => object !== null)
        .map((object) => ({ ...object, source: relative(metadata.name, name) }));
    });
}
