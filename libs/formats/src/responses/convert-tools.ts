import type { CanonicalTool, ToolChoice } from '@switchyard/canonical';
import {
  isAllowedToolsChoice,
  isFunctionTool,
  isFunctionToolChoice,
  type FunctionTool,
  type RequestTool,
  type RequestToolChoice,
} from './schema.ts';

/** Flat function tools and `tool_choice`, both directions (protocols.md §4.3, §10.3). */

export interface CanonicalToolSettings {
  tools?: CanonicalTool[];
  toolChoice?: ToolChoice;
  allowedTools?: string[];
  /** Hosted tools and hosted-tool selectors: no canonical meaning, kept for a Responses upstream. */
  vendorTools?: RequestTool[];
  vendorToolChoice?: RequestToolChoice;
}

export function toolsToCanonical(
  tools: RequestTool[] | null | undefined,
  toolChoice: RequestToolChoice | null | undefined,
): CanonicalToolSettings {
  const settings: CanonicalToolSettings = {};
  if (tools != null) {
    const functionTools = tools.filter(isFunctionTool);
    const vendorTools = tools.filter((tool) => !isFunctionTool(tool));
    if (functionTools.length > 0) settings.tools = functionTools.map(toolToCanonical);
    if (vendorTools.length > 0) settings.vendorTools = vendorTools;
  }
  if (toolChoice != null) Object.assign(settings, toolChoiceToCanonical(toolChoice));
  return settings;
}

function toolToCanonical(tool: FunctionTool): CanonicalTool {
  const canonical: CanonicalTool = {
    name: tool.name,
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  };
  if (tool.description != null) canonical.description = tool.description;
  if (tool.strict != null) canonical.strict = tool.strict;
  return canonical;
}

function toolChoiceToCanonical(choice: RequestToolChoice): CanonicalToolSettings {
  if (typeof choice === 'string') return { toolChoice: { type: choice } };
  if (isFunctionToolChoice(choice)) return { toolChoice: { type: 'tool', name: choice.name } };
  if (isAllowedToolsChoice(choice)) {
    const names: string[] = [];
    for (const tool of choice.tools) {
      // A hosted tool in the allowed set has no canonical meaning; keep the whole selector as is.
      if (tool.type !== 'function' || tool.name == null) return { vendorToolChoice: choice };
      names.push(tool.name);
    }
    return { toolChoice: { type: choice.mode }, allowedTools: names };
  }
  return { vendorToolChoice: choice };
}

export interface UpstreamFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** `strict` is a required field of the tool object and cannot be inferred from other formats: false unless given. */
export function toolFromCanonical(tool: CanonicalTool): UpstreamFunctionTool {
  return {
    type: 'function',
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.parameters,
    strict: tool.strict ?? false,
  };
}

export type UpstreamToolChoice =
  | 'none'
  | 'auto'
  | 'required'
  | { type: 'function'; name: string }
  | { type: 'allowed_tools'; mode: 'auto' | 'required'; tools: Array<{ type: 'function'; name: string }> };

export function toolChoiceFromCanonical(
  toolChoice: ToolChoice | undefined,
  allowedTools: string[] | undefined,
): UpstreamToolChoice | undefined {
  if (toolChoice?.type === 'none') return 'none';
  if (toolChoice?.type === 'tool') return { type: 'function', name: toolChoice.name };
  if (allowedTools !== undefined) {
    return {
      type: 'allowed_tools',
      mode: toolChoice?.type === 'required' ? 'required' : 'auto',
      tools: allowedTools.map((name) => ({ type: 'function', name })),
    };
  }
  return toolChoice?.type;
}
