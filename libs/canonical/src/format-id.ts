/** The four wire formats Switchyard speaks, as client formats and as upstream protocols. */
export const FORMAT_IDS = ['chat-completions', 'responses', 'messages', 'generate-content'] as const;

export type FormatId = (typeof FORMAT_IDS)[number];

export function isFormatId(value: unknown): value is FormatId {
  return typeof value === 'string' && (FORMAT_IDS as readonly string[]).includes(value);
}
