import { GatewayError, type ModelInfo } from '@switchyard/canonical';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** RFC 3339 as the vendor writes it (`2025-09-29T00:00:00Z`); catalog times are whole seconds. */
function formatCreatedAt(unixSeconds: number): string {
  return `${new Date(unixSeconds * 1000).toISOString().slice(0, 19)}Z`;
}

export function renderModel(model: ModelInfo): unknown {
  return {
    type: 'model',
    id: model.id,
    display_name: model.displayName ?? model.id,
    created_at: formatCreatedAt(model.created),
    max_input_tokens: model.maxInputTokens ?? null,
    max_tokens: model.maxOutputTokens ?? null,
  };
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    throw new GatewayError('invalid_request', `limit must be an integer between 1 and ${MAX_LIMIT}.`, { param: 'limit' });
  }
  return limit;
}

/** The page as [start, end) over the full list; a cursor that is not in the list yields an empty page. */
function pageBounds(ids: string[], limit: number, afterId: string | undefined, beforeId: string | undefined): [number, number] {
  if (afterId !== undefined) {
    const cursor = ids.indexOf(afterId);
    const start = cursor === -1 ? ids.length : cursor + 1;
    return [start, Math.min(ids.length, start + limit)];
  }
  if (beforeId !== undefined) {
    const end = Math.max(0, ids.indexOf(beforeId));
    return [Math.max(0, end - limit), end];
  }
  return [0, Math.min(ids.length, limit)];
}

/**
 * `GET /v1/models` in messages form (protocols.md §8): newest first, paged with `limit`,
 * `after_id`, `before_id`. messages has no embeddings endpoint, so embedding models are not listed.
 */
export function renderModelList(models: ModelInfo[], query: Record<string, string | undefined>): unknown {
  const limit = parseLimit(query.limit);
  const afterId = query.after_id;
  const beforeId = query.before_id;
  if (afterId !== undefined && beforeId !== undefined) {
    throw new GatewayError('invalid_request', 'Send either after_id or before_id, not both.', { param: 'before_id' });
  }
  const listed = models.filter((model) => model.kind === 'chat').sort((a, b) => b.created - a.created);
  const [start, end] = pageBounds(
    listed.map((model) => model.id),
    limit,
    afterId,
    beforeId,
  );
  const page = listed.slice(start, end);
  return {
    data: page.map(renderModel),
    has_more: beforeId === undefined ? end < listed.length : start > 0,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  };
}
