/**
 * Words with their trailing whitespace, so joining the pieces gives back the text exactly
 * (a stop sequence may cut in the middle of a word, and JSON has no spaces to lose).
 */
export function splitWords(text: string): string[] {
  if (text === '') return [];
  return text.split(/(?<=\s)(?=\S)/);
}

/** `count` groups of consecutive words, as even as possible; 0 or more than words = one each. */
export function groupWords(words: readonly string[], count: number): string[] {
  if (count <= 0 || count >= words.length) return [...words];
  const groups: string[] = [];
  for (let group = 0; group < count; group += 1) {
    const start = Math.round((group * words.length) / count);
    const end = Math.round(((group + 1) * words.length) / count);
    groups.push(words.slice(start, end).join(''));
  }
  return groups;
}

/** A string cut into `count` fragments of near-equal length, none empty. */
export function splitCharacters(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, count)));
  const fragments: string[] = [];
  for (let start = 0; start < text.length; start += size) fragments.push(text.slice(start, start + size));
  return fragments;
}
