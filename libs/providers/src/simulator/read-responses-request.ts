import { asArray, asNumber, asObject, asString } from './json-access.ts';
import type { JsonObject } from './json-access.ts';
import { readContentParts, type ContentReading } from './read-content-parts.ts';
import { emptySimulationRequest } from './simulation-request.ts';
import type { SimulationRequest } from './simulation-request.ts';

const MEDIA_PART_TYPES = new Set(['input_image', 'input_file', 'input_audio']);

function readContent(content: unknown): ContentReading {
  return readContentParts(content, MEDIA_PART_TYPES);
}

function readToolChoice(request: SimulationRequest, toolChoice: unknown): void {
  if (toolChoice === 'none' || toolChoice === 'required') request.toolMode = toolChoice;
  const choice = asObject(toolChoice);
  if (choice?.type === 'function' && typeof choice.name === 'string') {
    request.toolMode = 'required';
    request.allowedToolNames = [choice.name];
  } else if (choice?.type === 'allowed_tools') {
    request.toolMode = choice.mode === 'required' ? 'required' : 'auto';
    request.allowedToolNames = asArray(choice.tools).flatMap((tool) => {
      const name = asString(asObject(tool)?.name);
      return name === undefined ? [] : [name];
    });
  }
}

/** protocols.md §4.1–4.3. */
export function readResponsesRequest(body: JsonObject): SimulationRequest {
  const request = emptySimulationRequest(asString(body.model) ?? '');
  request.stream = body.stream === true;
  request.inputCharacters += (asString(body.instructions) ?? '').length;

  const toolResults: string[] = [];
  if (typeof body.input === 'string') {
    request.userText = body.input;
    request.inputCharacters += body.input.length;
  }
  for (const entry of asArray(body.input)) {
    const item = asObject(entry);
    if (item === undefined || item.type === 'reasoning' || item.type === 'item_reference') continue;
    if (item.type === 'function_call_output') {
      const { text, media } = readContent(item.output);
      request.inputCharacters += text.length;
      request.mediaParts += media;
      toolResults.push(text);
      continue;
    }
    toolResults.length = 0;
    if (item.type === 'function_call') {
      request.inputCharacters += (asString(item.arguments) ?? '').length;
      continue;
    }
    const { text, media } = readContent(item.content);
    request.inputCharacters += text.length;
    request.mediaParts += media;
    if (item.role === 'user') request.userText = text;
  }
  request.toolResultText = toolResults.length > 0 ? toolResults.join(' ') : undefined;

  for (const entry of asArray(body.tools)) {
    const tool = asObject(entry);
    const name = asString(tool?.name);
    if (tool?.type === 'function' && name !== undefined) request.tools.push({ name, schema: tool.parameters });
  }
  readToolChoice(request, body.tool_choice);
  request.parallelToolCalls = body.parallel_tool_calls !== false;

  const reasoning = asObject(body.reasoning);
  request.reasoning = reasoning !== undefined && reasoning.effort !== 'none' && (reasoning.effort !== undefined || reasoning.summary != null);
  request.encryptedReasoning = asArray(body.include).includes('reasoning.encrypted_content');

  const format = asObject(asObject(body.text)?.format);
  if (format?.type === 'json_object') request.json = { schema: undefined };
  if (format?.type === 'json_schema') request.json = { schema: format.schema };

  request.maxOutputTokens = asNumber(body.max_output_tokens);
  return request;
}
