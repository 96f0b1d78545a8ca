import type { ResponseSummary } from '../wire-format.ts';
import { usageToCanonical } from './convert-usage.ts';
import { asObject, stringField } from './read-wire-object.ts';

/** Usage and model of a Responses answer relayed untouched. */
export function summarizeResponse(body: unknown): ResponseSummary | undefined {
  const response = asObject(body);
  const usage = usageToCanonical(response?.['usage']);
  if (usage.estimated === true) return undefined;
  return { usage, model: stringField(response, 'model') };
}
