// Which `.Values` paths a chart's templates read, followed through the ways templates reach
// them besides `.Values.a.b`: variables (`$config := index $root.Values.targets $target`,
// `$config := .Values.monitoring.serviceMonitor`), `with` and `range` dots (`.secretRef.name`
// inside `range .Values.secretEnv`), parenthesised `(index .Values.targets $t).service.port`,
// and helpers called with the root or with `dict "root" $ ...`.
import { parseTemplate, type Operand, type Pipeline, type TemplateNode } from './go-template.ts';

/** `*`: any key of a map (an index by a variable); `[]`: any item of a list. */
export type ValuesPath = string[];

type Symbolic =
  | { kind: 'root' }
  | { kind: 'values'; path: ValuesPath }
  | { kind: 'dict'; entries: Map<string, Symbolic> }
  | { kind: 'literal'; value: unknown }
  | { kind: 'unknown' };

const UNKNOWN: Symbolic = { kind: 'unknown' };
const ROOT: Symbolic = { kind: 'root' };

export interface ValuesReference {
  template: string;
  line: number;
  path: ValuesPath;
}

export function valuesReferences(templates: Array<{ name: string; text: string }>): ValuesReference[] {
  const references: ValuesReference[] = [];
  for (const { name, text } of templates) {
    const parsed = parseTemplate(text, name);
    let line = 0;
    const record = (path: ValuesPath) => references.push({ template: name, line, path });

    const field = (value: Symbolic, fields: string[]): Symbolic => {
      let current = value;
      for (const segment of fields) {
        if (current.kind === 'root') {
          // Helpers take the root, or a dict whose `root` is the root: accept both readings.
          current = segment === 'Values' ? { kind: 'values', path: [] } : segment === 'root' ? ROOT : UNKNOWN;
        } else if (current.kind === 'values') {
          current = { kind: 'values', path: [...current.path, segment] };
          record(current.path);
        } else if (current.kind === 'dict') {
          current = current.entries.get(segment) ?? UNKNOWN;
        } else {
          return UNKNOWN;
        }
      }
      return current;
    };

    const walk = (nodes: TemplateNode[], dot: Symbolic, scopes: Array<Map<string, Symbolic>>): void => {
      const lookup = (variable: string): Symbolic => {
        for (let index = scopes.length - 1; index >= 0; index--) {
          const found = scopes[index]?.get(variable);
          if (found !== undefined) return found;
        }
        return UNKNOWN;
      };
      const operand = (entry: Operand): Symbolic => {
        switch (entry.kind) {
          case 'literal':
            return { kind: 'literal', value: entry.value };
          case 'field':
            return field(dot, entry.fields);
          case 'variable':
            return field(lookup(entry.name), entry.fields);
          case 'pipeline':
            return field(pipeline(entry.pipeline), entry.fields);
          case 'function':
            return UNKNOWN;
        }
      };
      const command = (entries: Operand[]): Symbolic => {
        const [head, ...rest] = entries as [Operand, ...Operand[]];
        const args = rest.map(operand);
        if (head.kind !== 'function') return entries.length === 1 ? operand(head) : UNKNOWN;
        if (head.name === 'index' && args[0]?.kind === 'values') {
          const path = [...args[0].path, ...args.slice(1).map((key) => (key.kind === 'literal' && typeof key.value === 'string' ? key.value : '*'))];
          record(path);
          return { kind: 'values', path };
        }
        if (head.name === 'dict') {
          const entriesOf = new Map<string, Symbolic>();
          for (let index = 0; index + 1 < args.length; index += 2) {
            const key = args[index];
            if (key?.kind === 'literal') entriesOf.set(String(key.value), args[index + 1] ?? UNKNOWN);
          }
          return { kind: 'dict', entries: entriesOf };
        }
        return UNKNOWN;
      };
      const pipeline = (entry: Pipeline): Symbolic => {
        let value: Symbolic = UNKNOWN;
        for (const entries of entry.commands) value = command(entries);
        return value;
      };
      const declare = (entry: Pipeline, value: Symbolic) => {
        const [variable] = entry.variables;
        if (variable !== undefined && !entry.assign) scopes[scopes.length - 1]?.set(variable, value);
      };

      for (const node of nodes) {
        if (node.kind === 'text') continue;
        line = node.line;
        switch (node.kind) {
          case 'output':
            declare(node.pipeline, pipeline(node.pipeline));
            break;
          case 'template':
            if (node.pipeline !== undefined) pipeline(node.pipeline);
            break;
          case 'if':
          case 'with':
            for (const branch of node.branches) {
              line = node.line;
              const scope = new Map<string, Symbolic>();
              const value = pipeline(branch.pipeline);
              walk(branch.body, node.kind === 'with' ? value : dot, [...scopes, scope]);
            }
            walk(node.otherwise, dot, [...scopes, new Map()]);
            break;
          case 'range': {
            const collection = pipeline(node.pipeline);
            const item: Symbolic = collection.kind === 'values' ? { kind: 'values', path: [...collection.path, '[]'] } : UNKNOWN;
            const scope = new Map<string, Symbolic>();
            const [first, second] = node.pipeline.variables;
            if (second !== undefined && first !== undefined) {
              // `range $key, $value :=` walks maps here: the item is any key's value.
              scope.set(second, item.kind === 'values' ? { kind: 'values', path: [...item.path.slice(0, -1), '*'] } : UNKNOWN);
            } else if (first !== undefined) {
              scope.set(first, item);
            }
            walk(node.body, second !== undefined ? (scope.get(second) ?? UNKNOWN) : item, [...scopes, scope]);
            walk(node.otherwise, dot, [...scopes, new Map()]);
            break;
          }
        }
      }
    };

    walk(parsed.nodes, ROOT, [new Map([['', ROOT]])]);
    for (const body of parsed.defines.values()) walk(body, ROOT, [new Map([['', ROOT]])]);
  }
  return references;
}
