import { asArray, asNumber, asObject, asString, asStringList } from './json-access.ts';
import type { JsonObject } from './json-access.ts';
import { emptySimulationRequest } from './simulation-request.ts';
import type { SimulationRequest } from './simulation-request.ts';

interface ContentReading {
  text: string;
  media: number;
  toolResults: string[];
  /** Characters of tool inputs, thinking and results: counted as input, not as user text. */
  otherCharacters: number;
}

function joinText(left: string, right: string): string {
  return left === '' ? right : left + ' ' + right;
}

/** A string or a list of blocks (protocols.md §5.2); tool_result content nests the same way. */
function readContent(content: unknown): ContentReading {
  const reading: ContentReading = { text: '', media: 0, toolResults: [], otherCharacters: 0 };
  if (typeof content === 'string') {
    reading.text = content;
    return reading;
  }
  for (const entry of asArray(content)) {
    const block = asObject(entry);
    switch (block?.type) {
      case 'text':
        reading.text = joinText(reading.text, asString(block.text) ?? '');
        break;
      case 'image':
        reading.media += 1;
        break;
      case 'document': {
        const source = asObject(block.source);
        if (source?.type === 'text') reading.otherCharacters += (asString(source.data) ?? '').length;
        else reading.media += 1;
        break;
      }
      case 'tool_use':
        reading.otherCharacters += JSON.stringify(block.input ?? {}).length;
        break;
      case 'thinking':
        reading.otherCharacters += (asString(block.thinking) ?? '').length;
        break;
      case 'tool_result': {
        const inner = readContent(block.content);
        reading.toolResults.push(inner.text);
        reading.media += inner.media;
        reading.otherCharacters += inner.text.length + inner.otherCharacters;
        break;
      }
    }
  }
  return reading;
}

function readToolChoice(request: SimulationRequest, toolChoice: unknown): void {
  const choice = asObject(toolChoice);
  if (choice === undefined) return;
  if (choice.type === 'none') request.toolMode = 'none';
  if (choice.type === 'any') request.toolMode = 'required';
  if (choice.type === 'tool' && typeof choice.name === 'string') {
    request.toolMode = 'required';
    request.allowedToolNames = [choice.name];
  }
  request.parallelToolCalls = choice.disable_parallel_tool_use !== true;
}

/** protocols.md §5.1–5.3. Validation (max_tokens, version header) happens in the handler. */
export function readMessagesRequest(body: JsonObject): SimulationRequest {
  const request = emptySimulationRequest(asString(body.model) ?? '');
  request.stream = body.stream === true;
  request.inputCharacters += readContent(body.system).text.length;

  let lastToolResults: string[] = [];
  for (const entry of asArray(body.messages)) {
    const message = asObject(entry);
    if (message === undefined) continue;
    const reading = readContent(message.content);
    request.inputCharacters += reading.text.length + reading.otherCharacters;
    request.mediaParts += reading.media;
    lastToolResults = reading.toolResults;
    if (message.role === 'user' && reading.text !== '') request.userText = reading.text;
  }
  request.toolResultText = lastToolResults.length > 0 ? lastToolResults.join(' ') : undefined;

  for (const entry of asArray(body.tools)) {
    const tool = asObject(entry);
    const name = asString(tool?.name);
    // Server tools (web_search_…) carry a versioned `type` and no input_schema: never "called".
    if (name !== undefined && tool?.input_schema !== undefined) request.tools.push({ name, schema: tool.input_schema });
  }
  readToolChoice(request, body.tool_choice);

  const thinking = asObject(body.thinking);
  request.reasoning = thinking?.type === 'enabled' || thinking?.type === 'adaptive';

  const format = asObject(asObject(body.output_config)?.format);
  if (format?.type === 'json_schema') request.json = { schema: format.schema };

  request.stopSequences = asStringList(body.stop_sequences);
  request.maxOutputTokens = asNumber(body.max_tokens);
  return request;
}
