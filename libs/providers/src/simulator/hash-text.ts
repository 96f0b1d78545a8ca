/**
 * FNV-1a, 32 bits: a fast, stable, dependency-free hash for deterministic fillers, embeddings
 * and fake signatures. Not for anything secret.
 */
export function hashText(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** Eight hex characters of `hashText`, for ids and signatures that must be stable. */
export function shortHash(text: string): string {
  return hashText(text).toString(16).padStart(8, '0');
}
