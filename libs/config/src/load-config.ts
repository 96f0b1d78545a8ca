import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { formatPath, protectReferences, resolveReferences } from './interpolate-env.ts';
import { configSchema, type SwitchyardConfig } from './schema.ts';

/** A config file that cannot be used; `problems` name the bad fields by path. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(file: string, problems: string[]) {
    super(`Invalid config ${file}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function parseConfig(text: string, file: string, env: Record<string, string | undefined> = process.env): SwitchyardConfig {
  const { text: protectedText, references } = protectReferences(text);
  let document: unknown;
  try {
    document = parse(protectedText) ?? {};
  } catch (error) {
    throw new ConfigError(file, [`YAML syntax: ${(error as Error).message}`]);
  }
  const missing: string[] = [];
  const interpolated = resolveReferences(document, references, env, missing);
  if (missing.length > 0) throw new ConfigError(file, missing);
  const result = configSchema.safeParse(interpolated);
  if (!result.success) {
    throw new ConfigError(
      file,
      result.error.issues.map((issue) => `${formatPath(issue.path)}: ${issue.message}`),
    );
  }
  return result.data;
}

export function loadConfig(file: string, env: Record<string, string | undefined> = process.env): SwitchyardConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, [`cannot read file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`]);
  }
  return parseConfig(text, file, env);
}
