import type { ModelInfo } from '@switchyard/canonical';

export interface ChatModelBody {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** `GET /v1/models` item (protocols.md §8). */
export function renderModel(model: ModelInfo): ChatModelBody {
  return { id: model.id, object: 'model', created: model.created, owned_by: model.ownedBy };
}

/** The OpenAI list is never paginated: every model in one answer. */
export function renderModelList(models: readonly ModelInfo[]): { object: 'list'; data: ChatModelBody[] } {
  return { object: 'list', data: models.map(renderModel) };
}
