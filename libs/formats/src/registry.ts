import type { FormatId } from '@switchyard/canonical';
import { chatCompletions } from './chat-completions/index.ts';
import { generateContent } from './generate-content/index.ts';
import { messages } from './messages/index.ts';
import { responses } from './responses/index.ts';
import type { WireFormat } from './wire-format.ts';

export const wireFormats: Readonly<Record<FormatId, WireFormat>> = {
  'chat-completions': chatCompletions,
  responses,
  messages,
  'generate-content': generateContent,
};
