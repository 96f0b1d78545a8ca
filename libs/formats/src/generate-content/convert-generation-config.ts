import { GatewayError, type CanonicalRequest, type ReasoningEffort, type ReasoningOptions } from '@switchyard/canonical';
import { reasoningBudget } from '../shared/index.ts';
import { convertOpenApiSchemaToJsonSchema } from './convert-openapi-schema.ts';
import { pickUnknownFields } from './extensions.ts';
import type { GenerationConfig } from './schema.ts';

type Settings = Pick<
  CanonicalRequest,
  | 'temperature'
  | 'topP'
  | 'topK'
  | 'n'
  | 'maxOutputTokens'
  | 'stopSequences'
  | 'presencePenalty'
  | 'frequencyPenalty'
  | 'seed'
  | 'responseFormat'
  | 'reasoning'
  | 'outputModalities'
>;

/** Fields read below; the rest (imageConfig, speechConfig, mediaResolution, logprobs, …) are extensions. */
const KNOWN_FIELDS = new Set([
  'temperature',
  'topP',
  'topK',
  'candidateCount',
  'maxOutputTokens',
  'stopSequences',
  'presencePenalty',
  'frequencyPenalty',
  'seed',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'thinkingConfig',
]);

const EFFORT_FOR_LEVEL: Record<string, ReasoningEffort | undefined> = {
  MINIMAL: 'minimal',
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
};

const OUTPUT_MODALITIES = ['text', 'image', 'audio'] as const;

/**
 * `generationConfig` → canonical sampling, output and reasoning settings (protocols.md §6.1,
 * §10.7). Returns the extension fields (a partial `generationConfig`) it could not map.
 */
export function convertGenerationConfigToCanonical(config: GenerationConfig | null | undefined): {
  settings: Settings;
  extensionFields?: Record<string, unknown>;
} {
  const settings: Settings = {};
  if (config == null) return { settings };
  if (config.temperature != null) settings.temperature = config.temperature;
  if (config.topP != null) settings.topP = config.topP;
  if (config.topK != null) settings.topK = config.topK;
  if (config.candidateCount != null) settings.n = config.candidateCount;
  if (config.maxOutputTokens != null) settings.maxOutputTokens = config.maxOutputTokens;
  if (config.stopSequences != null) settings.stopSequences = config.stopSequences;
  if (config.presencePenalty != null) settings.presencePenalty = config.presencePenalty;
  if (config.frequencyPenalty != null) settings.frequencyPenalty = config.frequencyPenalty;
  if (config.seed != null) settings.seed = config.seed;

  let extensionFields = pickUnknownFields(config, KNOWN_FIELDS);
  const mimeType = config.responseMimeType;
  if (mimeType === 'application/json') {
    const schema = config.responseJsonSchema ?? (config.responseSchema == null ? undefined : convertOpenApiSchemaToJsonSchema(config.responseSchema));
    settings.responseFormat = schema === undefined ? { type: 'json' } : { type: 'json-schema', schema };
  } else if (mimeType === 'text/plain') {
    settings.responseFormat = { type: 'text' };
  } else if (mimeType != null) {
    // `text/x.enum` and friends have no canonical form: kept whole for Gemini upstreams.
    const { responseSchema, responseJsonSchema } = config;
    extensionFields = {
      ...extensionFields,
      responseMimeType: mimeType,
      ...(responseSchema != null && { responseSchema }),
      ...(responseJsonSchema != null && { responseJsonSchema }),
    };
  }

  const thinking = config.thinkingConfig;
  if (thinking != null) {
    const reasoning: ReasoningOptions = {};
    if (thinking.thinkingBudget != null) reasoning.budgetTokens = thinking.thinkingBudget;
    const effort = thinking.thinkingLevel == null ? undefined : EFFORT_FOR_LEVEL[thinking.thinkingLevel];
    if (effort !== undefined) reasoning.effort = effort;
    if (thinking.includeThoughts != null) reasoning.includeThoughts = thinking.includeThoughts;
    settings.reasoning = reasoning;
  }

  if (config.responseModalities != null) {
    settings.outputModalities = OUTPUT_MODALITIES.filter((modality) => config.responseModalities?.includes(modality.toUpperCase()));
  }
  return extensionFields === undefined ? { settings } : { settings, extensionFields };
}

/**
 * Canonical settings → `generationConfig`, or undefined when nothing is set. Reasoning becomes a
 * budget through the shared effort table (§10.7); `thinkingLevel` is not emitted because a
 * request may not carry both and every current model accepts budgets.
 */
export function convertGenerationConfigToGemini(request: CanonicalRequest): Record<string, unknown> | undefined {
  const config: Record<string, unknown> = {};
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.n !== undefined && request.n > 1) {
    // One choice is all canonical answers carry; the rest would vanish without a word.
    throw new GatewayError('invalid_request', 'Only one candidate can be returned through this model; set n to 1.', { param: 'n' });
  }
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) config.stopSequences = request.stopSequences;
  if (request.presencePenalty !== undefined) config.presencePenalty = request.presencePenalty;
  if (request.frequencyPenalty !== undefined) config.frequencyPenalty = request.frequencyPenalty;
  if (request.seed !== undefined) config.seed = request.seed;

  const format = request.responseFormat;
  if (format?.type === 'json') config.responseMimeType = 'application/json';
  if (format?.type === 'json-schema') {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = format.schema;
  }

  if (request.reasoning !== undefined) {
    const thinking: Record<string, unknown> = {};
    const budget = reasoningBudget(request.reasoning);
    if (budget !== undefined) thinking.thinkingBudget = budget;
    if (request.reasoning.includeThoughts !== undefined) thinking.includeThoughts = request.reasoning.includeThoughts;
    if (Object.keys(thinking).length > 0) config.thinkingConfig = thinking;
  }

  if (request.outputModalities !== undefined && request.outputModalities.length > 0) {
    config.responseModalities = request.outputModalities.map((modality) => modality.toUpperCase());
  }
  return Object.keys(config).length > 0 ? config : undefined;
}
