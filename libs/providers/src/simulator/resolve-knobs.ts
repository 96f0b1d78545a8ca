import { DEFAULT_KNOBS, isKnobName } from './simulator-knobs.ts';
import type { SimulatorKnobs } from './simulator-knobs.ts';

const HEADER_PREFIX = 'x-sim-';
const DIRECTIVE = /\[\[sim:([^\]]*)\]\]/g;

function parseKnob(overrides: Partial<SimulatorKnobs>, rawName: string, rawValue: string): void {
  // Headers cannot carry underscores through every proxy, so dashes are accepted everywhere.
  const name = rawName.trim().toLowerCase().replaceAll('-', '_');
  if (!isKnobName(name)) return;
  const value = rawValue.trim();
  if (typeof DEFAULT_KNOBS[name] === 'boolean') {
    (overrides as Record<string, unknown>)[name] = value === '' || value === 'true' || value === '1';
    return;
  }
  const number = Number(value);
  // A typo in a test must not silently turn into 0 and change behaviour.
  if (value !== '' && Number.isFinite(number)) (overrides as Record<string, unknown>)[name] = number;
}

/** `x-sim-<knob>: value` request headers, read from the raw header list (no object built). */
export function readHeaderKnobs(rawHeaders: readonly string[]): Partial<SimulatorKnobs> | undefined {
  let overrides: Partial<SimulatorKnobs> | undefined;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string;
    if (name.length > HEADER_PREFIX.length && name.slice(0, HEADER_PREFIX.length).toLowerCase() === HEADER_PREFIX) {
      overrides ??= {};
      parseKnob(overrides, name.slice(HEADER_PREFIX.length), rawHeaders[index + 1] ?? '');
    }
  }
  return overrides;
}

export interface InlineDirectives {
  overrides: Partial<SimulatorKnobs> | undefined;
  /** The text with the directives removed, so the reply echoes what a human wrote. */
  text: string;
}

/** `[[sim:words=3,fail_status=500]]` anywhere in a user text. */
export function readInlineDirectives(text: string): InlineDirectives {
  if (!text.includes('[[sim:')) return { overrides: undefined, text };
  const overrides: Partial<SimulatorKnobs> = {};
  const stripped = text.replace(DIRECTIVE, (_match, body: string) => {
    for (const assignment of body.split(',')) {
      const equals = assignment.indexOf('=');
      if (equals === -1) parseKnob(overrides, assignment, '');
      else parseKnob(overrides, assignment.slice(0, equals), assignment.slice(equals + 1));
    }
    return '';
  });
  return { overrides, text: stripped.replace(/\s{2,}/g, ' ').trim() };
}

/** Later sources win: server defaults, then headers, then inline directives. */
export function resolveKnobs(
  defaults: SimulatorKnobs,
  fromHeaders: Partial<SimulatorKnobs> | undefined,
  inline: Partial<SimulatorKnobs> | undefined,
): SimulatorKnobs {
  if (fromHeaders === undefined && inline === undefined) return defaults;
  return { ...defaults, ...fromHeaders, ...inline };
}
