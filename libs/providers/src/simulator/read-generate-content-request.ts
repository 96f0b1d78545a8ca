import { asArray, asNumber, asObject, asString, asStringList } from './json-access.ts';
import type { JsonObject } from './json-access.ts';
import { emptySimulationRequest } from './simulation-request.ts';
import type { SimulationRequest } from './simulation-request.ts';

interface PartsReading {
  text: string;
  media: number;
  toolResults: string[];
  otherCharacters: number;
}

/** A Content's parts (protocols.md §6.2): one data field per part. */
function readParts(content: unknown): PartsReading {
  const reading: PartsReading = { text: '', media: 0, toolResults: [], otherCharacters: 0 };
  for (const entry of asArray(asObject(content)?.parts)) {
    const part = asObject(entry);
    if (part === undefined) continue;
    const text = asString(part.text);
    if (text !== undefined) {
      // Thought summaries replayed from an earlier turn are input, but nobody "wrote" them.
      if (part.thought === true) reading.otherCharacters += text.length;
      else reading.text = reading.text === '' ? text : reading.text + ' ' + text;
    } else if (part.inlineData !== undefined || part.fileData !== undefined) {
      reading.media += 1;
    } else if (part.functionCall !== undefined) {
      reading.otherCharacters += JSON.stringify(asObject(part.functionCall)?.args ?? {}).length;
    } else if (part.functionResponse !== undefined) {
      const result = JSON.stringify(asObject(part.functionResponse)?.response ?? {});
      reading.toolResults.push(result);
      reading.otherCharacters += result.length;
    }
  }
  return reading;
}

/** protocols.md §6.1; the model comes from the URL, streaming from the method name. */
export function readGenerateContentRequest(body: JsonObject, model: string, stream: boolean): SimulationRequest {
  const request = emptySimulationRequest(model);
  request.stream = stream;
  request.inputCharacters += readParts(body.systemInstruction).text.length;

  let lastToolResults: string[] = [];
  for (const entry of asArray(body.contents)) {
    const content = asObject(entry);
    const reading = readParts(content);
    request.inputCharacters += reading.text.length + reading.otherCharacters;
    request.mediaParts += reading.media;
    lastToolResults = reading.toolResults;
    // An omitted role means user (protocols.md §6.1).
    if (content?.role !== 'model' && reading.text !== '') request.userText = reading.text;
  }
  request.toolResultText = lastToolResults.length > 0 ? lastToolResults.join(' ') : undefined;

  for (const tool of asArray(body.tools)) {
    for (const entry of asArray(asObject(tool)?.functionDeclarations)) {
      const declaration = asObject(entry);
      const name = asString(declaration?.name);
      if (name !== undefined) request.tools.push({ name, schema: declaration?.parameters ?? declaration?.parametersJsonSchema });
    }
  }
  const calling = asObject(asObject(body.toolConfig)?.functionCallingConfig);
  if (calling?.mode === 'NONE') request.toolMode = 'none';
  if (calling?.mode === 'ANY') {
    request.toolMode = 'required';
    request.allowedToolNames = asStringList(calling.allowedFunctionNames);
  }

  const generation = asObject(body.generationConfig) ?? {};
  const thinking = asObject(generation.thinkingConfig);
  request.reasoningVisible = thinking?.includeThoughts === true;
  request.reasoning = request.reasoningVisible || (asNumber(thinking?.thinkingBudget) ?? 0) > 0;

  if (generation.responseMimeType === 'application/json') {
    request.json = { schema: generation.responseJsonSchema ?? generation.responseSchema };
  }
  request.stopSequences = asStringList(generation.stopSequences);
  request.maxOutputTokens = asNumber(generation.maxOutputTokens);
  request.imageOutput = asStringList(generation.responseModalities).some((modality) => modality.toUpperCase() === 'IMAGE');
  return request;
}
