import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './load-config.ts';

const valid = `
providers:
  up:
    protocol: chat-completions
    baseUrl: http://127.0.0.1:9001/v1
    apiKey: \${UP_KEY}
models:
  - name: fast-chat
    deployments:
      - { provider: up, model: m1 }
tenants:
  - id: acme
    limits: { rpm: 10 }
    keys:
      - { id: ci, key: \${ACME_KEY} }
`;

function problemsOf(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(text, 'test.yaml', env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('parseConfig', () => {
  it('should interpolate variables and apply defaults', () => {
    const config = parseConfig(valid, 'test.yaml', { UP_KEY: 'upstream-secret', ACME_KEY: 'sk-sy-acme-0123456789' });
    expect(config.providers.up?.apiKey).toBe('upstream-secret');
    expect(config.models[0]?.deployments[0]?.weight).toBe(1);
    expect(config.tenants[0]?.models).toEqual(['*']);
    expect(config.tenants[0]?.keys[0]?.key).toBe('sk-sy-acme-0123456789');
  });

  it('should name the field whose variable is missing', () => {
    expect(problemsOf(valid, { ACME_KEY: 'sk-sy-acme-0123456789' })).toEqual([
      'providers.up.apiKey: environment variable UP_KEY is not set',
    ]);
  });

  it('should give the path of a bad field', () => {
    const problems = problemsOf(valid.replace('rpm: 10', 'rpm: -1'), { UP_KEY: 'x', ACME_KEY: 'sk-sy-acme-0123456789' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^tenants\.0\.limits\.rpm: /);
  });

  it('should refuse a deployment on an unknown provider', () => {
    const problems = problemsOf(valid.replace('provider: up', 'provider: nope'), { UP_KEY: 'x', ACME_KEY: 'sk-sy-acme-0123456789' });
    expect(problems).toEqual(["models.0.deployments.0.provider: unknown provider 'nope'"]);
  });

  it('should report YAML syntax errors', () => {
    expect(problemsOf('providers: [unclosed')[0]).toMatch(/^YAML syntax/);
  });

  it('should reject unknown keys so typos do not pass silently', () => {
    expect(problemsOf('tenantz: []')[0]).toMatch(/tenantz/);
  });

  it('should give a field that is one reference its scalar type', () => {
    const config = parseConfig(valid.replace('rpm: 10', 'rpm: ${RPM}'), 'test.yaml', { UP_KEY: 'x', ACME_KEY: 'sk-sy-acme-0123456789', RPM: '600' });
    expect(config.tenants[0]?.limits.rpm).toBe(600);
  });

  it('should use the default of a reference when the variable is unset', () => {
    const config = parseConfig(valid.replace('${UP_KEY}', '${UP_KEY:-fallback}'), 'test.yaml', { ACME_KEY: 'sk-sy-acme-0123456789' });
    expect(config.providers.up?.apiKey).toBe('fallback');
  });

  it('should refuse a limit the limiter cannot count exactly', () => {
    const problems = problemsOf(valid.replace('rpm: 10', 'rpm: 2000000000'), { UP_KEY: 'x', ACME_KEY: 'sk-sy-acme-0123456789' });
    expect(problems[0]).toMatch(/^tenants\.0\.limits\.rpm: /);
  });
});
