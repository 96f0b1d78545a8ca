import { GatewayError, type CanonicalRequest, type CanonicalTool, type ToolChoice } from '@switchyard/canonical';
import type { ToolChoiceParam, ToolParam } from './schema.ts';

/** Where server tools (versioned `type`, run by the vendor) wait in `extensions.fields` for a messages upstream. */
export const SERVER_TOOLS_FIELD = 'tools';

const EMPTY_SCHEMA = { type: 'object', properties: {} };

// ── messages → canonical ────────────────────────────────────────────────────────────────

export interface DecodedTools {
  tools: CanonicalTool[];
  /** Server tools only a messages upstream can run; they travel as an extension. */
  serverTools: ToolParam[];
}

/** `cache_control` on a tool has no canonical meaning and is dropped (fast path keeps it). */
export function convertToolsToCanonical(tools: ToolParam[]): DecodedTools {
  const decoded: DecodedTools = { tools: [], serverTools: [] };
  for (const tool of tools) {
    if (tool.type !== undefined && tool.type !== 'custom') {
      decoded.serverTools.push(tool);
      continue;
    }
    const canonical: CanonicalTool = { name: tool.name, parameters: tool.input_schema ?? EMPTY_SCHEMA };
    if (tool.description !== undefined) canonical.description = tool.description;
    if (tool.strict !== undefined) canonical.strict = tool.strict;
    decoded.tools.push(canonical);
  }
  return decoded;
}

export function convertToolChoiceToCanonical(choice: ToolChoiceParam): {
  toolChoice: ToolChoice;
  parallelToolCalls?: boolean;
} {
  if (choice.type === 'none') return { toolChoice: { type: 'none' } };
  const toolChoice: ToolChoice =
    choice.type === 'any' ? { type: 'required' } : choice.type === 'tool' ? { type: 'tool', name: choice.name } : { type: 'auto' };
  return choice.disable_parallel_tool_use === true ? { toolChoice, parallelToolCalls: false } : { toolChoice };
}

// ── canonical → messages ────────────────────────────────────────────────────────────────

interface MessagesTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
  strict?: boolean;
}

type MessagesToolChoice =
  | { type: 'auto' | 'any'; disable_parallel_tool_use?: boolean }
  | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean }
  | { type: 'none' };

export interface EncodedTools {
  tools?: unknown[];
  tool_choice?: MessagesToolChoice;
}

/** messages requires `input_schema.type: "object"` (protocols.md §10.3). */
function encodeTool(tool: CanonicalTool): MessagesTool {
  const encoded: MessagesTool = {
    name: tool.name,
    input_schema: tool.parameters.type === undefined ? { ...EMPTY_SCHEMA, ...tool.parameters } : tool.parameters,
  };
  if (tool.description !== undefined) encoded.description = tool.description;
  // strict:false is the default; sending it would only trip upstream versions that predate the field.
  if (tool.strict === true) encoded.strict = true;
  return encoded;
}

function encodeToolChoice(
  choice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
): MessagesToolChoice | undefined {
  const parallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return parallelToolCalls === false ? { type: 'auto', ...parallel } : undefined;
    case 'auto':
      return { type: 'auto', ...parallel };
    case 'required':
      return { type: 'any', ...parallel };
    case 'tool':
      return { type: 'tool', name: choice.name, ...parallel };
    // Valid on messages and meaningful: the model must answer in text (protocols.md §12.19).
    case 'none':
      return { type: 'none' };
  }
}

function serverTools(request: CanonicalRequest): unknown[] {
  if (request.extensions?.format !== 'messages') return [];
  const tools = request.extensions.fields[SERVER_TOOLS_FIELD];
  return Array.isArray(tools) ? tools : [];
}

/**
 * `allowedTools` has no messages knob, so only the allowed tools are sent (§10.3). A tool
 * choice without any tool is dropped — except a forced one, which would otherwise silently
 * turn into a plain text answer.
 */
export function encodeTools(request: CanonicalRequest): EncodedTools {
  const allowed = request.allowedTools === undefined ? undefined : new Set(request.allowedTools);
  const tools: unknown[] = [];
  for (const tool of request.tools ?? []) {
    if (allowed === undefined || allowed.has(tool.name)) tools.push(encodeTool(tool));
  }
  tools.push(...serverTools(request));
  if (tools.length === 0) {
    const forced = request.toolChoice?.type === 'required' || request.toolChoice?.type === 'tool';
    if (forced) throw new GatewayError('invalid_request', 'tool_choice requires at least one tool.', { param: 'tool_choice' });
    return {};
  }
  const toolChoice = encodeToolChoice(request.toolChoice, request.parallelToolCalls);
  return toolChoice === undefined ? { tools } : { tools, tool_choice: toolChoice };
}
