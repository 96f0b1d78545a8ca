import type { CanonicalRequest, CanonicalTool, ToolChoice } from '@switchyard/canonical';
import { convertOpenApiSchemaToJsonSchema } from './convert-openapi-schema.ts';
import { pickUnknownFields, setField } from './extensions.ts';
import { isRecord } from '../shared/index.ts';
import { sanitizeSchema } from './sanitize-schema.ts';
import type { Tool, ToolConfig } from './schema.ts';

interface CanonicalToolSettings {
  tools?: CanonicalTool[];
  toolChoice?: ToolChoice;
  allowedTools?: string[];
}

const FUNCTION_TOOL_KEYS = new Set(['functionDeclarations']);
const TOOL_CONFIG_KEYS = new Set(['functionCallingConfig']);
const FUNCTION_CALLING_CONFIG_KEYS = new Set(['mode', 'allowedFunctionNames']);

/**
 * `tools` + `toolConfig` → canonical tools and tool choice (protocols.md §10.3). Hosted tools
 * (googleSearch, codeExecution, …), `VALIDATED` mode and unknown config are returned as extension
 * fields, a partial body in wire layout (extensions.ts).
 */
export function convertToolsToCanonical(
  tools: Tool[] | null | undefined,
  toolConfig: ToolConfig | null | undefined,
): { settings: CanonicalToolSettings; extensionFields?: Record<string, unknown> } {
  const settings: CanonicalToolSettings = {};
  const extensionFields: Record<string, unknown> = {};
  const hostedTools: Record<string, unknown>[] = [];
  for (const tool of tools ?? []) {
    for (const declaration of tool.functionDeclarations ?? []) {
      (settings.tools ??= []).push({
        name: declaration.name,
        ...(declaration.description != null && { description: declaration.description }),
        parameters:
          declaration.parametersJsonSchema ??
          (declaration.parameters == null ? { type: 'object', properties: {} } : convertOpenApiSchemaToJsonSchema(declaration.parameters)),
      });
    }
    const hosted = pickUnknownFields(tool, FUNCTION_TOOL_KEYS);
    if (hosted !== undefined) hostedTools.push(hosted);
  }
  if (hostedTools.length > 0) extensionFields.tools = hostedTools;

  const otherConfig = toolConfig == null ? undefined : pickUnknownFields(toolConfig, TOOL_CONFIG_KEYS);
  if (otherConfig !== undefined) extensionFields.toolConfig = otherConfig;
  const calling = toolConfig?.functionCallingConfig;
  if (calling != null) {
    const otherCalling = pickUnknownFields(calling, FUNCTION_CALLING_CONFIG_KEYS);
    if (otherCalling !== undefined) setField(extensionFields, ['toolConfig', 'functionCallingConfig'], otherCalling);
    // Schema-validated AUTO has no canonical form, so the mode itself is kept for Gemini upstreams.
    if (calling.mode === 'VALIDATED') setField(extensionFields, ['toolConfig', 'functionCallingConfig', 'mode'], 'VALIDATED');
    Object.assign(settings, convertFunctionCallingConfig(calling.mode, calling.allowedFunctionNames ?? []));
  }
  return Object.keys(extensionFields).length === 0 ? { settings } : { settings, extensionFields };
}

function convertFunctionCallingConfig(mode: string | null | undefined, names: string[]): CanonicalToolSettings {
  const allowedTools = names.length > 0 ? { allowedTools: names } : {};
  switch (mode) {
    case 'NONE':
      return { toolChoice: { type: 'none' } };
    case 'ANY':
      return names.length === 1 ? { toolChoice: { type: 'tool', name: names[0]! } } : { toolChoice: { type: 'required' }, ...allowedTools };
    case 'AUTO':
    case 'VALIDATED':
      return { toolChoice: { type: 'auto' }, ...allowedTools };
    default:
      return {};
  }
}

/**
 * Canonical tools and tool choice → `tools` + `toolConfig` (§10.3 table). A named tool is `ANY`
 * restricted to it; a subset under `required` is `ANY` + `allowedFunctionNames`, and under
 * `auto` the declarations themselves are filtered (`allowedFunctionNames` only goes with `ANY`).
 * Schemas are sanitised to the OpenAPI subset Gemini accepts.
 */
export function convertToolsToGemini(
  request: CanonicalRequest,
  warnings: string[],
): { tools?: Record<string, unknown>[]; toolConfig?: Record<string, unknown> } {
  if (request.parallelToolCalls === false) warnings.push('generate-content cannot disable parallel tool calls; parallelToolCalls was dropped.');
  const choice = request.toolChoice;
  const allowed = request.allowedTools;
  let declared = request.tools ?? [];
  if (declared.length === 0) return {};
  if (allowed !== undefined && choice?.type !== 'required') declared = declared.filter((tool) => allowed.includes(tool.name));

  const tools = [{ functionDeclarations: declared.map(convertDeclaration) }];
  if (choice === undefined) return { tools };
  return { tools, toolConfig: { functionCallingConfig: convertToolChoice(choice, allowed) } };
}

function convertToolChoice(choice: ToolChoice, allowed: string[] | undefined): Record<string, unknown> {
  switch (choice.type) {
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return allowed === undefined ? { mode: 'ANY' } : { mode: 'ANY', allowedFunctionNames: allowed };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.name] };
  }
}

function convertDeclaration(tool: CanonicalTool): Record<string, unknown> {
  const declaration: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined) declaration.description = tool.description;
  // A function without arguments has no parameters at all: Gemini rejects an OBJECT without properties.
  if (!isEmptyObjectSchema(tool.parameters)) declaration.parameters = sanitizeSchema(tool.parameters);
  return declaration;
}

function isEmptyObjectSchema(schema: Record<string, unknown>): boolean {
  if (schema.type !== undefined && schema.type !== 'object') return false;
  if (['$ref', 'anyOf', 'oneOf', 'allOf'].some((keyword) => keyword in schema)) return false;
  return schema.properties === undefined || (isRecord(schema.properties) && Object.keys(schema.properties).length === 0);
}
