/**
 * The keep-alive for formats whose clients ignore SSE comments: a comment line, written only
 * between events (protocols.md §2 — never inside one).
 */
export const COMMENT_KEEP_ALIVE = ': keep-alive\n\n';
