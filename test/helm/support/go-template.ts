// A parser for the subset of Go's text/template that Helm charts use: actions with trim
// markers, comments, if / else if / else, range (with `$k, $v :=`), with, define, template,
// variables (`:=`, `=`), pipelines, parenthesised pipelines with field chains. No helm binary
// exists on CI, so the chart tests read and render the templates through this.

export type Operand =
  | { kind: 'field'; fields: string[] } // `.a.b`, `.` (fields = [])
  | { kind: 'variable'; name: string; fields: string[] } // `$x.a`, `$` (name = '')
  | { kind: 'function'; name: string }
  | { kind: 'literal'; value: unknown }
  | { kind: 'pipeline'; pipeline: Pipeline; fields: string[] }; // `(…).a`

export interface Pipeline {
  /** `$x :=` declares, `$x =` assigns; range may declare two (`$k, $v :=`). */
  variables: string[];
  assign: boolean;
  commands: Operand[][];
}

export type TemplateNode =
  | { kind: 'text'; text: string }
  | { kind: 'output'; pipeline: Pipeline; line: number }
  | { kind: 'if' | 'with'; branches: Array<{ pipeline: Pipeline; body: TemplateNode[] }>; otherwise: TemplateNode[]; line: number }
  | { kind: 'range'; pipeline: Pipeline; body: TemplateNode[]; otherwise: TemplateNode[]; line: number }
  | { kind: 'template'; name: string; pipeline: Pipeline | undefined; line: number };

export interface ParsedTemplate {
  nodes: TemplateNode[];
  defines: Map<string, TemplateNode[]>;
}

type Token =
  | { type: 'string' | 'number' | 'identifier'; value: string }
  | { type: 'variable'; value: string; fields: string[] }
  | { type: 'field'; fields: string[] }
  | { type: 'punct'; value: '(' | ')' | '|' | ':=' | '=' | ',' }
  | { type: 'fields'; fields: string[] }; // a field chain right after `)`

interface Action {
  tokens: Token[];
  line: number;
}

type Piece = { kind: 'text'; text: string } | { kind: 'action'; action: Action };

const WHITESPACE = /[ \t\r\n]/;

/** Splits a template into text and actions, applying `{{-` / `-}}` trimming and dropping comments. */
function split(source: string): Piece[] {
  const pieces: Piece[] = [];
  let position = 0;
  let trimNext = false;
  while (position < source.length) {
    const open = source.indexOf('{{', position);
    let text = source.slice(position, open === -1 ? source.length : open);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    if (open === -1) {
      pieces.push({ kind: 'text', text });
      break;
    }
    let cursor = open + 2;
    if (source[cursor] === '-' && WHITESPACE.test(source[cursor + 1] ?? '')) {
      text = text.replace(/[ \t\r\n]+$/, '');
      cursor += 1;
    }
    pieces.push({ kind: 'text', text });
    const line = source.slice(0, open).split('\n').length;
    const body = source.slice(cursor);
    const comment = /^\s*\/\*/.exec(body);
    let close: number;
    let tokens: Token[] = [];
    if (comment !== null) {
      const end = body.indexOf('*/');
      if (end === -1) throw new Error(`line ${line}: unclosed comment`);
      close = body.indexOf('}}', end);
      if (close === -1) throw new Error(`line ${line}: unclosed action`);
    } else {
      ({ tokens, close } = tokenize(body, line));
    }
    const inner = body.slice(0, close);
    trimNext = /[ \t\r\n]-$/.test(inner);
    if (comment === null) pieces.push({ kind: 'action', action: { tokens, line } });
    position = cursor + close + 2;
  }
  return pieces;
}

/** Tokens of one action up to its `}}` (a trailing ` -` trim marker is not a token). */
function tokenize(body: string, line: number): { tokens: Token[]; close: number } {
  const tokens: Token[] = [];
  let index = 0;
  const fieldChain = (): string[] => {
    const match = /^(?:\.[A-Za-z_][A-Za-z0-9_]*)+/.exec(body.slice(index));
    if (match === null) return [];
    index += match[0].length;
    return match[0].slice(1).split('.');
  };
  for (;;) {
    const rest = body.slice(index);
    if (rest === '') throw new Error(`line ${line}: unclosed action`);
    const character = body[index] ?? '';
    if (rest.startsWith('}}')) return { tokens, close: index };
    if (/^-}}/.test(rest) && WHITESPACE.test(body[index - 1] ?? '')) return { tokens, close: index + 1 };
    if (WHITESPACE.test(character)) {
      index++;
      continue;
    }
    if (character === '"') {
      const match = /^"(?:[^"\\]|\\.)*"/.exec(rest);
      if (match === null) throw new Error(`line ${line}: unterminated string`);
      tokens.push({ type: 'string', value: JSON.parse(match[0]) as string });
      index += match[0].length;
    } else if (character === '`') {
      const end = body.indexOf('`', index + 1);
      tokens.push({ type: 'string', value: body.slice(index + 1, end) });
      index = end + 1;
    } else if (rest.startsWith(':=')) {
      tokens.push({ type: 'punct', value: ':=' });
      index += 2;
    } else if ('()|=,'.includes(character)) {
      tokens.push({ type: 'punct', value: character as '(' | ')' | '|' | '=' | ',' });
      index++;
      if (character === ')' && body[index] === '.') tokens.push({ type: 'fields', fields: fieldChain() });
    } else if (character === '$') {
      const match = /^\$[A-Za-z0-9_]*/.exec(rest) as RegExpExecArray;
      index += match[0].length;
      tokens.push({ type: 'variable', value: match[0].slice(1), fields: fieldChain() });
    } else if (character === '.') {
      const fields = fieldChain();
      if (fields.length === 0) index++;
      tokens.push({ type: 'field', fields });
    } else if (/[-+0-9]/.test(character)) {
      const match = /^[-+]?[0-9][0-9_.eExXa-fA-F]*/.exec(rest);
      if (match === null) throw new Error(`line ${line}: unexpected ${character}`);
      tokens.push({ type: 'number', value: match[0] });
      index += match[0].length;
    } else {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
      if (match === null) throw new Error(`line ${line}: unexpected ${character}`);
      tokens.push({ type: 'identifier', value: match[0] });
      index += match[0].length;
    }
  }
}

class PipelineParser {
  private index = 0;
  private readonly tokens: Token[];
  private readonly line: number;

  constructor(tokens: Token[], line: number) {
    this.tokens = tokens;
    this.line = line;
  }

  parse(allowDeclaration: boolean): Pipeline {
    const pipeline = this.pipeline(allowDeclaration);
    if (this.index !== this.tokens.length) throw new Error(`line ${this.line}: unexpected token ${JSON.stringify(this.tokens[this.index])}`);
    return pipeline;
  }

  private pipeline(allowDeclaration: boolean): Pipeline {
    const pipeline: Pipeline = { variables: [], assign: false, commands: [] };
    if (allowDeclaration) this.declaration(pipeline);
    let command: Operand[] = [];
    while (this.index < this.tokens.length) {
      const token = this.tokens[this.index] as Token;
      if (token.type === 'punct' && token.value === ')') break;
      this.index++;
      if (token.type === 'punct' && token.value === '|') {
        pipeline.commands.push(command);
        command = [];
        continue;
      }
      command.push(this.operand(token));
    }
    pipeline.commands.push(command);
    if (pipeline.commands.some((entry) => entry.length === 0)) throw new Error(`line ${this.line}: empty command`);
    return pipeline;
  }

  private declaration(pipeline: Pipeline): void {
    const [first, second, third, fourth] = this.tokens.slice(this.index);
    const isVariable = (token: Token | undefined): token is Token & { type: 'variable' } =>
      token?.type === 'variable' && token.fields.length === 0;
    const isPunct = (token: Token | undefined, value: string) => token?.type === 'punct' && token.value === value;
    if (isVariable(first) && (isPunct(second, ':=') || isPunct(second, '='))) {
      pipeline.variables = [first.value];
      pipeline.assign = isPunct(second, '=');
      this.index += 2;
    } else if (isVariable(first) && isPunct(second, ',') && isVariable(third) && isPunct(fourth, ':=')) {
      pipeline.variables = [first.value, third.value];
      this.index += 4;
    }
  }

  private operand(token: Token): Operand {
    switch (token.type) {
      case 'string':
        return { kind: 'literal', value: token.value };
      case 'number':
        return { kind: 'literal', value: Number(token.value.replaceAll('_', '')) };
      case 'variable':
        return { kind: 'variable', name: token.value, fields: token.fields };
      case 'field':
        return { kind: 'field', fields: token.fields };
      case 'identifier':
        if (token.value === 'true' || token.value === 'false') return { kind: 'literal', value: token.value === 'true' };
        if (token.value === 'nil') return { kind: 'literal', value: undefined };
        return { kind: 'function', name: token.value };
      case 'punct': {
        if (token.value !== '(') throw new Error(`line ${this.line}: unexpected ${token.value}`);
        const pipeline = this.pipeline(false);
        const close = this.tokens[this.index++];
        if (close?.type !== 'punct' || close.value !== ')') throw new Error(`line ${this.line}: missing )`);
        const next = this.tokens[this.index];
        if (next?.type === 'fields') {
          this.index++;
          return { kind: 'pipeline', pipeline, fields: next.fields };
        }
        return { kind: 'pipeline', pipeline, fields: [] };
      }
      case 'fields':
        throw new Error(`line ${this.line}: unexpected field chain`);
    }
  }
}

/** Parses one template file; `define` blocks go to `defines`, the rest to `nodes`. */
export function parseTemplate(source: string, name = 'template'): ParsedTemplate {
  const pieces = split(source);
  const defines = new Map<string, TemplateNode[]>();
  let position = 0;
  const fail = (line: number, message: string): never => {
    throw new Error(`${name}:${line}: ${message}`);
  };
  const keyword = (action: Action): string | undefined => {
    const first = action.tokens[0];
    return first?.type === 'identifier' && ['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block'].includes(first.value) ? first.value : undefined;
  };
  const pipelineOf = (action: Action, skip: number, allowDeclaration: boolean): Pipeline =>
    new PipelineParser(action.tokens.slice(skip), action.line).parse(allowDeclaration);

  /** Parses nodes until `end` or `else`; returns the stopping action (undefined at the file's end). */
  const list = (nodes: TemplateNode[]): Action | undefined => {
    while (position < pieces.length) {
      const piece = pieces[position++] as Piece;
      if (piece.kind === 'text') {
        if (piece.text !== '') nodes.push({ kind: 'text', text: piece.text });
        continue;
      }
      const { action } = piece;
      switch (keyword(action)) {
        case 'end':
        case 'else':
          return action;
        case 'if':
        case 'with': {
          const kind = keyword(action) as 'if' | 'with';
          const node: TemplateNode & { kind: 'if' | 'with' } = { kind, branches: [], otherwise: [], line: action.line };
          let condition = pipelineOf(action, 1, kind === 'with');
          for (;;) {
            const body: TemplateNode[] = [];
            const stop = list(body) ?? fail(action.line, `unclosed ${kind}`);
            node.branches.push({ pipeline: condition, body });
            if (keyword(stop) === 'end') break;
            const chained = stop.tokens[1];
            if (chained?.type === 'identifier' && chained.value === kind) {
              condition = pipelineOf(stop, 2, kind === 'with');
              continue;
            }
            const stopEnd = list(node.otherwise) ?? fail(action.line, `unclosed ${kind}`);
            if (keyword(stopEnd) !== 'end') fail(stopEnd.line, 'else after else');
            break;
          }
          nodes.push(node);
          break;
        }
        case 'range': {
          const node: TemplateNode & { kind: 'range' } = { kind: 'range', pipeline: pipelineOf(action, 1, true), body: [], otherwise: [], line: action.line };
          const stop = list(node.body) ?? fail(action.line, 'unclosed range');
          if (keyword(stop) === 'else' && keyword(list(node.otherwise) ?? fail(action.line, 'unclosed range')) !== 'end') fail(action.line, 'else after else');
          nodes.push(node);
          break;
        }
        case 'define': {
          const nameToken = action.tokens[1];
          if (nameToken?.type !== 'string') fail(action.line, 'define needs a name');
          const body: TemplateNode[] = [];
          const stop = list(body) ?? fail(action.line, 'unclosed define');
          if (keyword(stop) !== 'end') fail(stop.line, 'else in define');
          defines.set((nameToken as { value: string }).value, body);
          break;
        }
        case 'template': {
          const nameToken = action.tokens[1];
          if (nameToken?.type !== 'string') fail(action.line, 'template needs a name');
          const pipeline = action.tokens.length > 2 ? pipelineOf(action, 2, false) : undefined;
          nodes.push({ kind: 'template', name: (nameToken as { value: string }).value, pipeline, line: action.line });
          break;
        }
        case 'block':
          fail(action.line, 'block is not supported');
          break;
        default:
          nodes.push({ kind: 'output', pipeline: pipelineOf(action, 0, true), line: action.line });
      }
    }
    return undefined;
  };
  const nodes: TemplateNode[] = [];
  const stop = list(nodes);
  if (stop !== undefined) fail(stop.line, `unexpected ${keyword(stop) ?? 'action'}`);
  return { nodes, defines };
}
