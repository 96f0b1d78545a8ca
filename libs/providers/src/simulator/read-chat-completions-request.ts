import { asArray, asNumber, asObject, asString, asStringList } from './json-access.ts';
import type { JsonObject } from './json-access.ts';
import { readContentParts, type ContentReading } from './read-content-parts.ts';
import { emptySimulationRequest } from './simulation-request.ts';
import type { SimulationRequest, ToolMode } from './simulation-request.ts';

const MEDIA_PART_TYPES = new Set(['image_url', 'input_audio', 'file']);

function readContent(content: unknown): ContentReading {
  return readContentParts(content, MEDIA_PART_TYPES);
}

function readToolChoice(request: SimulationRequest, toolChoice: unknown): void {
  if (typeof toolChoice === 'string') {
    request.toolMode = toolChoice === 'none' || toolChoice === 'required' ? (toolChoice as ToolMode) : 'auto';
    return;
  }
  const choice = asObject(toolChoice);
  if (choice === undefined) return;
  const forced = asString(asObject(choice.function)?.name);
  if (forced !== undefined) {
    request.toolMode = 'required';
    request.allowedToolNames = [forced];
    return;
  }
  const allowed = asObject(choice.allowed_tools);
  if (allowed !== undefined) {
    request.toolMode = allowed.mode === 'required' ? 'required' : 'auto';
    request.allowedToolNames = asArray(allowed.tools).flatMap((tool) => {
      const name = asString(asObject(asObject(tool)?.function)?.name);
      return name === undefined ? [] : [name];
    });
  }
}

/** protocols.md §3.1–3.3. */
export function readChatCompletionsRequest(body: JsonObject): SimulationRequest {
  const request = emptySimulationRequest(asString(body.model) ?? '');
  request.stream = body.stream === true;
  request.includeUsage = request.stream && asObject(body.stream_options)?.include_usage === true;

  const toolResults: string[] = [];
  for (const entry of asArray(body.messages)) {
    const message = asObject(entry);
    if (message === undefined) continue;
    const { text, media } = readContent(message.content);
    request.inputCharacters += text.length;
    request.mediaParts += media;
    for (const call of asArray(message.tool_calls)) {
      request.inputCharacters += (asString(asObject(asObject(call)?.function)?.arguments) ?? '').length;
    }
    if (message.role === 'tool') {
      toolResults.push(text);
    } else {
      toolResults.length = 0;
      if (message.role === 'user') request.userText = text;
    }
  }
  request.toolResultText = toolResults.length > 0 ? toolResults.join(' ') : undefined;

  for (const entry of asArray(body.tools)) {
    const definition = asObject(asObject(entry)?.function);
    const name = asString(definition?.name);
    if (name !== undefined) request.tools.push({ name, schema: definition?.parameters });
  }
  readToolChoice(request, body.tool_choice);
  request.parallelToolCalls = body.parallel_tool_calls !== false;

  const effort = asString(body.reasoning_effort);
  request.reasoning = effort !== undefined && effort !== 'none';

  const format = asObject(body.response_format);
  if (format?.type === 'json_object') request.json = { schema: undefined };
  if (format?.type === 'json_schema') request.json = { schema: asObject(format.json_schema)?.schema };

  request.stopSequences = asStringList(body.stop);
  request.maxOutputTokens = asNumber(body.max_completion_tokens) ?? asNumber(body.max_tokens);
  return request;
}
