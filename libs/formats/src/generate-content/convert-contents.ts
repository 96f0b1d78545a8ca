import { GatewayError, type CanonicalMessage, type ContentPart, type ToolResultPart } from '@switchyard/canonical';
import { createId } from '../shared/index.ts';
import { convertFunctionResponseToCanonical, convertToolResultToGemini } from './convert-function-response.ts';
import { convertPartToCanonical, convertPartToGemini, type GeminiPart } from './convert-parts.ts';
import type { Content, Part } from './schema.ts';

/**
 * `systemInstruction` + `contents` → canonical messages (protocols.md §6.1, §10.1). A user turn
 * holding function responses becomes a `tool` message, followed by a `user` message for any
 * other parts it held. A function response without an id answers the earliest unanswered call
 * of the same name in the preceding model turn.
 */
export function convertContentsToCanonical(systemInstruction: Content | null | undefined, contents: Content[]): CanonicalMessage[] {
  const messages: CanonicalMessage[] = [];
  const systemParts = systemInstruction?.parts ?? [];
  if (systemParts.length > 0) {
    const content = systemParts.map((part, index) => {
      if (part.text == null) throw unsupportedPart(`systemInstruction.parts[${index}]`, 'only text parts are allowed here');
      return { type: 'text' as const, text: part.text };
    });
    messages.push({ role: 'system', content });
  }

  let unansweredCalls: Array<{ id: string; name: string }> = [];
  contents.forEach((content, turn) => {
    const parts = content.parts ?? [];
    // `function` is the legacy role of function-response turns and reads as `user`.
    if (content.role != null && !['user', 'model', 'function'].includes(content.role)) {
      throw new GatewayError('invalid_request', `Invalid role '${content.role}': use user or model.`, { param: `contents[${turn}].role` });
    }
    if (content.role === 'model') {
      const converted = parts.map((part, index) => convertRequestPart(part, `contents[${turn}].parts[${index}]`));
      unansweredCalls = converted.flatMap((part) => (part.type === 'tool-call' ? [{ id: part.id, name: part.name }] : []));
      if (converted.length > 0) messages.push({ role: 'assistant', content: converted });
      return;
    }
    const results: ToolResultPart[] = [];
    const others: ContentPart[] = [];
    parts.forEach((part, index) => {
      const response = part.functionResponse;
      if (response == null) {
        others.push(convertRequestPart(part, `contents[${turn}].parts[${index}]`));
        return;
      }
      const position = unansweredCalls.findIndex((call) => (response.id == null ? call.name === response.name : call.id === response.id));
      const callId = response.id ?? unansweredCalls[position]?.id ?? createId('call_');
      if (position !== -1) unansweredCalls.splice(position, 1);
      results.push(convertFunctionResponseToCanonical(response, callId));
    });
    if (results.length > 0) messages.push({ role: 'tool', content: results });
    if (others.length > 0) messages.push({ role: 'user', content: others });
  });
  return messages;
}

function convertRequestPart(part: Part, param: string): ContentPart {
  if (part.functionResponse != null) throw unsupportedPart(param, 'a functionResponse belongs in a user turn');
  const converted = convertPartToCanonical(part, 'by-type');
  if (converted === undefined) throw unsupportedPart(param, 'it holds none of text, inlineData, fileData, functionCall, functionResponse');
  return converted;
}

function unsupportedPart(param: string, reason: string): GatewayError {
  return new GatewayError('invalid_request', `Unsupported part at '${param}': ${reason}.`, { param });
}

/** Gemini rejects empty text, so the added opening turn needs some text; a lone period says nothing. */
const OPENING_PLACEHOLDER = '.';

interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** A function-response turn must hold only function responses (§10.4), so it never merges with other user parts. */
interface Turn extends GeminiContent {
  functionResponses: boolean;
}

/**
 * Canonical messages → `systemInstruction` + `contents` (protocols.md §10.1, §10.4, §12.7):
 * system and developer text is hoisted and joined by blank lines; tool results become a user turn
 * of exactly the `functionResponse` parts (the name looked up from the matching call when the
 * result lacks it); empty parts and the turns they empty are dropped; consecutive turns of the
 * same role merge; a conversation opening with a model turn gets a placeholder user turn first.
 */
export function convertMessagesToGemini(
  messages: CanonicalMessage[],
  warnings: string[],
): { systemInstruction?: { parts: GeminiPart[] }; contents: GeminiContent[] } {
  const callNames = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.content) if (part.type === 'tool-call') callNames.set(part.id, part.name);
  }

  const system: string[] = [];
  const turns: Turn[] = [];
  messages.forEach((message, messageIndex) => {
    const param = `messages[${messageIndex}]`;
    if (message.role === 'system' || message.role === 'developer') {
      for (const part of message.content) {
        if (part.type === 'text') system.push(part.text);
        else warnOnce(warnings, `generate-content system instructions hold only text; a ${part.type} part was dropped.`);
      }
      return;
    }
    const responses: GeminiPart[] = [];
    const parts: GeminiPart[] = [];
    message.content.forEach((part, partIndex) => {
      const partParam = `${param}.content[${partIndex}]`;
      if (part.type === 'tool-result') responses.push(convertToolResultToGemini(part, resultName(part, callNames, partParam), partParam));
      else {
        // Gemini sizes images by its own mediaResolution setting; a per-image detail has nowhere to go.
        if (part.type === 'image' && part.detail !== undefined && part.detail !== 'auto') {
          warnOnce(warnings, 'generate-content has no per-image detail; detail was dropped.');
        }
        const converted = convertPartToGemini(part, partParam);
        if (converted !== undefined) parts.push(converted);
      }
    });
    appendTurn(turns, { role: 'user', parts: responses, functionResponses: true });
    appendTurn(turns, { role: message.role === 'assistant' ? 'model' : 'user', parts, functionResponses: false });
  });

  if (turns.length === 0) {
    throw new GatewayError('invalid_request', 'The conversation has no user or assistant content to send.', { param: 'messages' });
  }
  if (turns[0]!.role === 'model') {
    warnings.push('generate-content conversations must start with a user turn; a placeholder user turn was added.');
    turns.unshift({ role: 'user', parts: [{ text: OPENING_PLACEHOLDER }], functionResponses: false });
  }
  const contents = turns.map(({ role, parts }) => ({ role, parts }));
  const instruction = system.filter((text) => text !== '').join('\n\n');
  return instruction === '' ? { contents } : { systemInstruction: { parts: [{ text: instruction }] }, contents };
}

function appendTurn(turns: Turn[], turn: Turn): void {
  if (turn.parts.length === 0) return;
  const last = turns[turns.length - 1];
  if (last !== undefined && last.role === turn.role && last.functionResponses === turn.functionResponses) {
    last.parts.push(...turn.parts);
  } else turns.push(turn);
}

function resultName(result: ToolResultPart, callNames: Map<string, string>, param: string): string {
  const name = result.name ?? callNames.get(result.callId);
  if (name === undefined) {
    throw new GatewayError(
      'invalid_request',
      `No tool call with id '${result.callId}' precedes this tool result; generate-content needs its function name.`,
      { param },
    );
  }
  return name;
}

function warnOnce(warnings: string[], warning: string): void {
  if (!warnings.includes(warning)) warnings.push(warning);
}
