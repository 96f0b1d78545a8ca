import { formatSseEvent } from '@switchyard/sse';
import { describe, expect, it } from 'vitest';
import { createRelayMonitor } from './relay-monitor.ts';

// The monitor's agreement with the decoder, on every format's fixtures, is in ../relay-monitor.test.ts.
// Here: which chat chunks a run takes, by the content-chunk pattern and by the key search.

const HEAD =
  '{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion.chunk","created":1767225600,"model":"gpt-4o-2024-08-06",' +
  '"service_tier":"default","system_fingerprint":"fp_50cad350e4","choices":';
const ROLE = `${HEAD}[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"x"}`;
const content = (escapedText: string) =>
  `${HEAD}[{"index":0,"delta":{"content":"${escapedText}"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"nM"}`;
const FINISH = `${HEAD}[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null,"obfuscation":"nM"}`;
/** Azure's layout: a content filter result in every choice, so not OpenAI's. */
const AZURE =
  '{"choices":[{"content_filter_results":{"hate":{"filtered":false,"severity":"safe"}},"delta":{"content":"Hi"},"finish_reason":null,"index":0,"logprobs":null}],' +
  '"created":1767225600,"id":"chatcmpl-1","model":"gpt-4o","object":"chat.completion.chunk","system_fingerprint":"fp_1"}';

/** The run a started monitor skips at the start of `chunks` written as SSE, in chunks. */
function runOf(chunks: readonly string[]): number {
  const monitor = createRelayMonitor();
  monitor.push({ event: undefined, data: ROLE });
  const run = monitor.skippablePrefix?.(chunks.map((data) => formatSseEvent(data)).join('')) ?? { events: 0 };
  return run.events;
}

describe('chat relay monitor runs', () => {
  it("should take OpenAI's content chunks and stop at the finish chunk", () => {
    expect(runOf([content('Hello'), content(' world'), FINISH, content('late')])).toBe(2);
  });

  it('should take text that spells a watched key or holds escapes, which cannot be a key', () => {
    expect(runOf([content('say \\"finish_reason\\":\\"stop\\", \\"usage\\":{}'), content('a\\nb \\\\ \\u00e9'), FINISH])).toBe(2);
  });

  it('should stop before a chunk in the same layout that carries a watched key', () => {
    const variants = [
      content('a').replace('"finish_reason":null', '"finish_reason":"length"'),
      content('a').replace('"usage":null', '"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}'),
      content('a').replace('"usage":null', '"error":{"message":"no"}'),
      content('a').replace(',"logprobs":null', ',"logprobs":null,"usage":{"prompt_tokens":1}'),
      `${HEAD}[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
    ];
    for (const variant of variants) expect(runOf([content('x'), content('y'), variant, content('z')]), variant).toBe(2);
  });

  it('should take chunks in other layouts by the key search, and go on past them', () => {
    expect(runOf([AZURE, AZURE, FINISH])).toBe(2);
    expect(runOf([content('a'), AZURE, content('b'), FINISH])).toBe(1);
    // The key search takes the rest, up to the finish, in one run.
    const monitor = createRelayMonitor();
    monitor.push({ event: undefined, data: ROLE });
    const rest = [AZURE, content('b'), AZURE, FINISH].map((data) => formatSseEvent(data)).join('');
    expect(monitor.skippablePrefix?.(rest).events).toBe(3);
  });

  it('should never take an event cut short, even where the next one would complete the pattern', () => {
    const cut = content('a').slice(0, content('a').indexOf('"a"') + 2);
    const rest = '"},"logprobs":null,"finish_reason":null}],"usage":null}';
    expect(runOf([cut, rest, FINISH])).toBe(0);
  });

  it('should take nothing before the stream has started', () => {
    const monitor = createRelayMonitor();
    expect(monitor.skippablePrefix?.(formatSseEvent(content('a'))).events).toBe(0);
  });
});
