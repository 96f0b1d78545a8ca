import type { CanonicalRequest, ContentPart } from '@switchyard/canonical';

/**
 * Local token counts for when an upstream reports none, and for count-tokens endpoints.
 * gpt-tokenizer (o200k) is exact for OpenAI models and a fair estimate for the others;
 * answers that use it are marked `estimated`. Loaded on first use: its rank table costs ~70 MB
 * of memory that a router whose upstreams report usage never needs.
 */
let tokenizer: Promise<(text: string) => number> | undefined;

async function countTokens(text: string): Promise<number> {
  tokenizer ??= import('gpt-tokenizer').then((module) => module.countTokens);
  return (await tokenizer)(text);
}

export async function estimateTextTokens(text: string): Promise<number> {
  return text.length === 0 ? 0 : countTokens(text);
}

export async function estimateRequestTokens(request: CanonicalRequest): Promise<number> {
  let text = '';
  for (const message of request.messages) {
    for (const part of message.content) text += partText(part) + '\n';
  }
  for (const tool of request.tools ?? []) text += `${tool.name} ${tool.description ?? ''} ${JSON.stringify(tool.parameters)}\n`;
  // A few tokens of framing per message, as the vendors' own counters add.
  return (await estimateTextTokens(text)) + 3 * request.messages.length;
}

function partText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
    case 'refusal':
    case 'reasoning':
      return part.text;
    case 'tool-call':
      return `${part.name} ${part.arguments}`;
    case 'tool-result':
      return typeof part.content === 'string' ? part.content : part.content.map(partText).join('\n');
    default:
      // Media is billed by vendors per image/second, not per byte; count a nominal block.
      return ' [media] ';
  }
}
