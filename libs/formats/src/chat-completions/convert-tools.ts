import type { CanonicalTool, ToolChoice } from '@switchyard/canonical';
import type {
  ChatAllowedToolsChoice,
  ChatFunctionDefinition,
  ChatFunctionTool,
  ChatNamedFunction,
  ChatRequest,
  ChatTool,
  ChatToolChoice,
} from './schema.ts';

export interface CanonicalToolSettings {
  tools?: CanonicalTool[];
  toolChoice?: ToolChoice;
  allowedTools?: string[];
  /** `custom` / hosted tools and a choice naming one: only a chat upstream can honour them. */
  extensionFields: Record<string, unknown>;
}

type ChatToolChoiceObject = Exclude<ChatToolChoice, string>;

// The schema refuses any other entry typed `function` / `allowed_tools`, so `type` discriminates.
function isFunctionTool(tool: ChatTool): tool is ChatFunctionTool {
  return tool.type === 'function';
}

function isNamedFunction(choice: ChatToolChoiceObject | ChatTool): choice is ChatNamedFunction {
  return choice.type === 'function';
}

function isAllowedTools(choice: ChatToolChoiceObject): choice is ChatAllowedToolsChoice {
  return choice.type === 'allowed_tools';
}

function toCanonicalTool(definition: ChatFunctionDefinition): CanonicalTool {
  const tool: CanonicalTool = {
    name: definition.name,
    // Omitted parameters mean "no arguments" (protocols.md §3.3).
    parameters: definition.parameters ?? { type: 'object', properties: {} },
  };
  if (definition.description != null) tool.description = definition.description;
  if (definition.strict != null) tool.strict = definition.strict;
  return tool;
}

/** tools / tool_choice and their deprecated `functions` / `function_call` twins (§3.3, §10.3). */
export function convertToCanonicalTools(
  request: Pick<ChatRequest, 'tools' | 'tool_choice' | 'functions' | 'function_call'>,
): CanonicalToolSettings {
  const settings: CanonicalToolSettings = { extensionFields: {} };
  const tools: CanonicalTool[] = [];
  const vendorTools: ChatTool[] = [];
  for (const tool of request.tools ?? []) {
    if (isFunctionTool(tool)) tools.push(toCanonicalTool(tool.function));
    else vendorTools.push(tool);
  }
  for (const definition of request.functions ?? []) tools.push(toCanonicalTool(definition));
  if (tools.length > 0) settings.tools = tools;
  if (vendorTools.length > 0) settings.extensionFields.tools = vendorTools;

  const choice = request.tool_choice;
  if (typeof choice === 'string') {
    settings.toolChoice = { type: choice };
  } else if (choice != null) {
    if (isNamedFunction(choice)) {
      settings.toolChoice = { type: 'tool', name: choice.function.name };
    } else if (isAllowedTools(choice) && choice.allowed_tools.tools.every(isNamedFunction)) {
      settings.toolChoice = { type: choice.allowed_tools.mode };
      settings.allowedTools = choice.allowed_tools.tools.map((tool) => tool.function.name);
    } else {
      settings.extensionFields.tool_choice = choice;
    }
  } else if (request.function_call != null) {
    const legacy = request.function_call;
    settings.toolChoice = typeof legacy === 'string' ? { type: legacy } : { type: 'tool', name: legacy.name };
  }
  return settings;
}

export function convertToChatTools(tools: readonly CanonicalTool[]): ChatFunctionTool[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters, strict: tool.strict },
  }));
}

function namedFunction(name: string): ChatNamedFunction {
  return { type: 'function', function: { name } };
}

/** A subset restriction becomes `allowed_tools`; a specific tool or `none` already says more. */
export function convertToChatToolChoice(
  choice: ToolChoice | undefined,
  allowedTools: readonly string[] | undefined,
): ChatToolChoice | undefined {
  if (choice?.type === 'tool') return namedFunction(choice.name);
  if (choice?.type === 'none') return 'none';
  if (allowedTools !== undefined) {
    return {
      type: 'allowed_tools',
      allowed_tools: { mode: choice?.type ?? 'auto', tools: allowedTools.map(namedFunction) },
    };
  }
  return choice?.type;
}
