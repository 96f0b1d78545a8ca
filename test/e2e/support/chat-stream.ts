import type OpenAI from 'openai';

export interface ReadChatStream {
  text: string;
  usage: OpenAI.CompletionUsage | undefined;
  finishReason: string | undefined;
  chunks: number;
}

/** Streams one user turn through the OpenAI SDK with the usage chunk asked for, and reads what came. */
export async function streamChat(client: OpenAI, model: string, content: string): Promise<ReadChatStream> {
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const read: ReadChatStream = { text: '', usage: undefined, finishReason: undefined, chunks: 0 };
  for await (const chunk of stream) {
    read.chunks++;
    read.text += chunk.choices[0]?.delta.content ?? '';
    read.finishReason ??= chunk.choices[0]?.finish_reason ?? undefined;
    if (chunk.usage) read.usage = chunk.usage;
  }
  return read;
}
