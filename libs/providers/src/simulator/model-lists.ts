/** Fixed listings, one per vendor shape (protocols.md §8). The simulator answers any model id. */
const CREATED = 1767225600;

export function renderOpenAiModelList(): string {
  return JSON.stringify({
    object: 'list',
    data: ['sim-chat', 'sim-embedding'].map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'switchyard-simulator' })),
  });
}

export function renderMessagesModelList(): string {
  const models = [
    { type: 'model', id: 'sim-messages', display_name: 'Simulated Messages', created_at: '2026-01-01T00:00:00Z', max_input_tokens: 200000, max_tokens: 64000 },
  ];
  return JSON.stringify({ data: models, has_more: false, first_id: 'sim-messages', last_id: 'sim-messages' });
}

export function renderGeminiModelList(): string {
  const model = (id: string, displayName: string, methods: string[]) => ({
    name: `models/${id}`,
    baseModelId: id,
    version: '001',
    displayName,
    description: 'Deterministic simulated model',
    inputTokenLimit: 1048576,
    outputTokenLimit: 65536,
    supportedGenerationMethods: methods,
    temperature: 1,
    maxTemperature: 2,
    topP: 0.95,
    topK: 64,
  });
  return JSON.stringify({
    models: [
      { ...model('sim-gemini', 'Simulated Gemini', ['generateContent', 'streamGenerateContent', 'countTokens']), thinking: true },
      model('sim-embedding', 'Simulated Embedding', ['embedContent', 'batchEmbedContents']),
    ],
  });
}
