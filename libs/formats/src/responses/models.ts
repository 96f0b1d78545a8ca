import type { ModelInfo } from '@switchyard/canonical';

/** `GET /v1/models` in the OpenAI shape, shared by both OpenAI formats (protocols.md §8). */
export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function renderModel(model: ModelInfo): ModelObject {
  return { id: model.id, object: 'model', created: model.created, owned_by: model.ownedBy };
}

/** The OpenAI list is not paginated, so the query is not read. */
export function renderModelList(models: ModelInfo[]): { object: 'list'; data: ModelObject[] } {
  return { object: 'list', data: models.map(renderModel) };
}
