import type { CanonicalMessage, ContentPart, ToolResultPart } from '@switchyard/canonical';
import {
  convertContentBlockToPart,
  convertToolResultContentToCanonical,
  encodeContentPart,
  type MessagesContentBlock,
} from './convert-content-blocks.ts';
import type { ContentBlock, MessageParam } from './schema.ts';

type ToolResultBlock = Extract<ContentBlock, { type: 'tool_result' }>;

export interface MessagesTurn {
  role: 'user' | 'assistant';
  content: MessagesContentBlock[];
}

/** Sent when a conversation has no user turn to start with; messages requires one (protocols.md §12.2). */
const CONTINUE_PROMPT = '(continue)';

// ── messages → canonical ────────────────────────────────────────────────────────────────

function convertSystem(system: string | Array<{ text: string }> | undefined): ContentPart[] {
  if (system === undefined || system === '') return [];
  if (typeof system === 'string') return [{ type: 'text', text: system }];
  return system.map((block) => ({ type: 'text', text: block.text }));
}

/** messages results carry no tool name; generate-content needs one, and the call earlier in the conversation has it. */
function convertToolResult(block: ToolResultBlock, toolNames: ReadonlyMap<string, string>): ToolResultPart {
  const part: ToolResultPart = {
    type: 'tool-result',
    callId: block.tool_use_id,
    content: convertToolResultContentToCanonical(block.content),
  };
  const name = toolNames.get(block.tool_use_id);
  if (name !== undefined) part.name = name;
  if (block.is_error !== undefined) part.isError = block.is_error;
  return part;
}

/**
 * `system` becomes a leading system message. Each `tool_result` becomes a `tool` message placed
 * before the rest of its user turn, which is where messages requires results to sit (§10.4), so
 * chat-style targets see results right after the calls they answer.
 */
export function convertMessagesToCanonical(
  system: string | Array<{ text: string }> | undefined,
  messages: MessageParam[],
): CanonicalMessage[] {
  const result: CanonicalMessage[] = [];
  const systemParts = convertSystem(system);
  if (systemParts.length > 0) result.push({ role: 'system', content: systemParts });
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    if (typeof message.content === 'string') {
      result.push({ role: message.role, content: [{ type: 'text', text: message.content }] });
      continue;
    }
    const content: ContentPart[] = [];
    for (const block of message.content) {
      if (block.type === 'tool_result') {
        result.push({ role: 'tool', content: [convertToolResult(block, toolNames)] });
        continue;
      }
      const part = convertContentBlockToPart(block);
      if (part === undefined) continue;
      if (part.type === 'tool-call') toolNames.set(part.id, part.name);
      content.push(part);
    }
    if (content.length > 0) result.push({ role: message.role, content });
  }
  return result;
}

// ── canonical → messages ────────────────────────────────────────────────────────────────

interface OpenTurn {
  role: 'user' | 'assistant';
  /** tool_result blocks go first in a user turn, ahead of any text (protocols.md §10.4, §12.3). */
  results: MessagesContentBlock[];
  content: MessagesContentBlock[];
}

export interface EncodedConversation {
  system?: string;
  messages: MessagesTurn[];
}

/**
 * Hoists every system/developer message into `system` (joined by blank lines, in order; a
 * mid-conversation instruction loses its position, §10.1), merges consecutive same-role turns,
 * puts tool results first in their user turn, drops blocks messages would reject, and makes the
 * conversation start with a user turn.
 */
export function convertMessagesFromCanonical(messages: CanonicalMessage[], warnings: string[]): EncodedConversation {
  const systemTexts: string[] = [];
  const turns: OpenTurn[] = [];
  for (const [messageIndex, message] of messages.entries()) {
    if (message.role === 'system' || message.role === 'developer') {
      for (const part of message.content) {
        if (part.type === 'text') systemTexts.push(part.text);
        else warnings.push(`A ${part.type} part of a ${message.role} message was dropped: messages system prompts are text.`);
      }
      continue;
    }
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const results: MessagesContentBlock[] = [];
    const content: MessagesContentBlock[] = [];
    for (const [partIndex, part] of message.content.entries()) {
      const block = encodeContentPart(part, `messages[${messageIndex}].content[${partIndex}]`);
      if (block === undefined) continue;
      if (block.type === 'tool_result') results.push(block);
      else content.push(block);
    }
    if (results.length === 0 && content.length === 0) continue;
    const last = turns.at(-1);
    if (last !== undefined && last.role === role) {
      last.results.push(...results);
      last.content.push(...content);
    } else {
      turns.push({ role, results, content });
    }
  }
  if (turns[0]?.role !== 'user') {
    turns.unshift({ role: 'user', results: [], content: [{ type: 'text', text: CONTINUE_PROMPT }] });
    warnings.push(`The conversation did not start with a user turn; a "${CONTINUE_PROMPT}" user turn was inserted.`);
  }
  const system = systemTexts.filter((text) => text.trim() !== '').join('\n\n');
  const encoded: EncodedConversation = {
    messages: turns.map((turn) => ({ role: turn.role, content: [...turn.results, ...turn.content] })),
  };
  if (system !== '') encoded.system = system;
  return encoded;
}
