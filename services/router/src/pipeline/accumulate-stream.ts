import type { CanonicalResponse, ContentPart, StreamPart, ToolCallPart } from '@switchyard/canonical';

/**
 * Folds canonical stream parts into the complete answer they describe: what a stream's
 * client ended up with, for stored Responses state and for usage estimates.
 */
export class StreamAccumulator {
  readonly #content: ContentPart[] = [];
  readonly #calls = new Map<number, ToolCallPart>();
  #response: CanonicalResponse | undefined;
  // Deltas are kept as pieces and joined once a block closes: `+=` would leave a rope of one
  // string per delta for the answer to hold until the stream's usage is durable.
  readonly #text: string[] = [];
  readonly #reasoning: string[] = [];
  #started = { id: '', model: '', created: 0 };

  push(part: StreamPart): void {
    switch (part.type) {
      case 'start':
        this.#started = { id: part.id, model: part.model, created: part.created };
        break;
      case 'text-delta':
        this.#flushReasoning();
        if (part.text !== '') this.#text.push(part.text);
        break;
      case 'refusal-delta':
        this.#flushText();
        this.#content.push({ type: 'refusal', text: part.text });
        break;
      case 'reasoning-delta':
        this.#flushText();
        if (part.text !== '') this.#reasoning.push(part.text);
        break;
      case 'reasoning-end':
        this.#content.push({
          type: 'reasoning',
          text: this.#reasoning.join(''),
          ...(part.signature === undefined ? {} : { signature: part.signature }),
          ...(part.redactedData === undefined ? {} : { redactedData: part.redactedData }),
          ...(part.id === undefined ? {} : { id: part.id }),
        });
        this.#reasoning.length = 0;
        break;
      case 'tool-call-start': {
        this.#flushText();
        this.#flushReasoning();
        const call: ToolCallPart = { type: 'tool-call', id: part.id, name: part.name, arguments: '' };
        this.#calls.set(part.index, call);
        this.#content.push(call);
        break;
      }
      case 'tool-call-delta': {
        const call = this.#calls.get(part.index);
        if (call !== undefined) call.arguments += part.argumentsDelta;
        break;
      }
      case 'tool-call-end': {
        const call = this.#calls.get(part.index);
        if (call !== undefined && part.signature !== undefined) call.signature = part.signature;
        break;
      }
      case 'file':
        this.#flushText();
        this.#content.push({ type: 'file', source: { kind: 'base64', mediaType: part.mediaType, data: part.data } });
        break;
      case 'finish':
        this.#flushText();
        this.#flushReasoning();
        this.#response = { ...this.#started, content: this.#content, finishReason: part.finishReason, usage: part.usage };
        break;
      case 'error':
        break;
    }
  }

  /** Everything generated so far, finished or not: estimates bill a broken stream for what it delivered. */
  generatedText(): string {
    return generatedText(this.#content) + this.#text.join('') + this.#reasoning.join('');
  }

  /** The complete answer, once a `finish` part has arrived. */
  get response(): CanonicalResponse | undefined {
    return this.#response;
  }

  #flushText(): void {
    if (this.#text.length === 0) return;
    this.#content.push({ type: 'text', text: this.#text.join('') });
    this.#text.length = 0;
  }

  #flushReasoning(): void {
    if (this.#reasoning.length === 0) return;
    this.#content.push({ type: 'reasoning', text: this.#reasoning.join('') });
    this.#reasoning.length = 0;
  }
}

/** The text a model generated in these parts (text, reasoning, tool arguments): what an output estimate counts. */
export function generatedText(content: ContentPart[]): string {
  let text = '';
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning' || part.type === 'refusal') text += part.text;
    else if (part.type === 'tool-call') text += part.arguments;
  }
  return text;
}
