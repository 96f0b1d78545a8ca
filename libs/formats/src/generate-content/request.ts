import { GatewayError, type CanonicalRequest } from '@switchyard/canonical';
import { zodErrorToGatewayError } from '../shared/index.ts';
import type { EncodedRequest, RequestContext } from '../wire-format.ts';
import { convertContentsToCanonical, convertMessagesToGemini } from './convert-contents.ts';
import { convertGenerationConfigToCanonical, convertGenerationConfigToGemini } from './convert-generation-config.ts';
import { convertToolsToCanonical, convertToolsToGemini } from './convert-tools.ts';
import { mergeExtensionFields, pickUnknownFields } from './extensions.ts';
import { parseGenerateContentRequest } from './is-generate-content-request.ts';
import type { GenerateContentRequest } from './schema.ts';

/**
 * Top-level fields read below. `model` appears only inside `:countTokens`'
 * `generateContentRequest`, where the URL's model wins. The rest (safetySettings,
 * cachedContent, labels, …) are extensions for Gemini upstreams.
 */
const KNOWN_FIELDS = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'model']);

/** A client's `:generateContent` / `:streamGenerateContent` body → canonical; the model and streaming come from the URL. */
export function requestToCanonical(body: unknown, context: RequestContext): CanonicalRequest {
  const parsed = parseGenerateContentRequest(body);
  if (!parsed.success) throw zodErrorToGatewayError(parsed.error);
  return decodeRequest(parsed.data, context);
}

export function decodeRequest(body: GenerateContentRequest, context: RequestContext): CanonicalRequest {
  if (context.model === undefined || context.model === '') {
    throw new GatewayError('invalid_request', 'The model name is missing from the URL (models/{model}:generateContent).', { param: 'model' });
  }
  const tools = convertToolsToCanonical(body.tools, body.toolConfig);
  const generation = convertGenerationConfigToCanonical(body.generationConfig);
  const request: CanonicalRequest = {
    model: context.model,
    messages: convertContentsToCanonical(body.systemInstruction, body.contents),
    stream: context.stream ?? false,
    ...tools.settings,
    ...generation.settings,
  };

  const fields = pickUnknownFields(body, KNOWN_FIELDS) ?? {};
  if (tools.extensionFields !== undefined) mergeExtensionFields(fields, tools.extensionFields);
  if (generation.extensionFields !== undefined) mergeExtensionFields(fields, { generationConfig: generation.extensionFields });
  if (Object.keys(fields).length > 0) request.extensions = { format: 'generate-content', fields };
  return request;
}

/**
 * Canonical → a Gemini upstream body (the model goes in the path, endpoint.ts). Settings Gemini
 * has no room for are dropped with a warning; extensions are laid over the body only when they
 * came from a generate-content client.
 */
export function requestFromCanonical(request: CanonicalRequest): EncodedRequest {
  const warnings: string[] = [];
  const { systemInstruction, contents } = convertMessagesToGemini(request.messages, warnings);
  const body: Record<string, unknown> = { contents };
  if (systemInstruction !== undefined) body.systemInstruction = systemInstruction;
  const { tools, toolConfig } = convertToolsToGemini(request, warnings);
  if (tools !== undefined) body.tools = tools;
  if (toolConfig !== undefined) body.toolConfig = toolConfig;
  const generationConfig = convertGenerationConfigToGemini(request);
  if (generationConfig !== undefined) body.generationConfig = generationConfig;

  if (request.user !== undefined) warnings.push('generate-content has no end-user field; user was dropped.');
  if (request.metadata !== undefined) warnings.push('generate-content has no metadata field; metadata was dropped.');
  if (request.extensions?.format === 'generate-content') mergeExtensionFields(body, request.extensions.fields);
  return { body, warnings };
}
