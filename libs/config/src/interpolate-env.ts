const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const PLACEHOLDER = /__SY_ENV_(\d+)__/g;
const WHOLE_PLACEHOLDER = /^__SY_ENV_(\d+)__$/;

interface Reference {
  name: string;
  fallback: string | undefined;
}

/**
 * `${VAR}` and `${VAR:-default}` references, in two steps. Before YAML parsing each reference
 * becomes an inert placeholder: the design's own example puts `${ACME_KEY}` inside a flow map,
 * where raw braces would break the YAML. After parsing, placeholders are resolved in the
 * tree, so a value can never inject YAML structure and a missing variable is reported with
 * the path of the field that needs it.
 */
export function protectReferences(text: string): { text: string; references: Reference[] } {
  const references: Reference[] = [];
  const protectedText = text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    references.push({ name, fallback });
    return `__SY_ENV_${references.length - 1}__`;
  });
  return { text: protectedText, references };
}

export function resolveReferences(
  value: unknown,
  references: Reference[],
  env: Record<string, string | undefined>,
  missing: string[],
  path: Array<string | number> = [],
): unknown {
  if (typeof value === 'string') {
    const lookup = (index: string): string => {
      const reference = references[Number(index)];
      if (reference === undefined) return '';
      const found = env[reference.name];
      if (found !== undefined && found !== '') return found;
      if (reference.fallback !== undefined) return reference.fallback;
      missing.push(`${formatPath(path)}: environment variable ${reference.name} is not set`);
      return '';
    };
    const whole = WHOLE_PLACEHOLDER.exec(value);
    // A field that is one reference takes the variable's scalar type (`rpm: ${RPM}` is a number).
    if (whole?.[1] !== undefined) return toScalar(lookup(whole[1]));
    return value.replace(PLACEHOLDER, (_match, index: string) => lookup(index));
  }
  if (Array.isArray(value)) return value.map((item, index) => resolveReferences(item, references, env, missing, [...path, index]));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = resolveReferences(item, references, env, missing, [...path, key]);
    return out;
  }
  return value;
}

function toScalar(text: string): unknown {
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  if (text === 'true' || text === 'false') return text === 'true';
  return text;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.length === 0 ? '(root)' : path.map((part) => String(part)).join('.');
}
