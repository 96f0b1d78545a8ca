import { parseConfig } from '@switchyard/config';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from './build-snapshot.ts';
import { CatalogIndex } from './catalog-index.ts';

const config = parseConfig(
  `
providers:
  sim: { protocol: simulator }
models:
  - { name: a, deployments: [{ provider: sim, model: x }] }
  - { name: b, deployments: [{ provider: sim, model: y }] }
tenants:
  - id: acme
    models: [a, b]
    keys:
      - { id: full, key: sk-sy-acme-full-0123456789 }
      - { id: narrow, key: sk-sy-acme-narrow-0123456789, models: [b] }
  - id: demo
    keys:
      - { id: demo, generate: true }
`,
  'inline.yaml',
  {},
);

describe('CatalogIndex', () => {
  const { snapshot, generatedKeys } = buildSnapshot(config);
  const index = new CatalogIndex(snapshot);

  it('should never keep a plaintext key in the snapshot', () => {
    expect(JSON.stringify(snapshot)).not.toContain('sk-sy-acme-full');
  });

  it('should authenticate a configured key and refuse an unknown one', () => {
    expect(index.authenticate('sk-sy-acme-full-0123456789')?.tenant.id).toBe('acme');
    expect(index.authenticate('sk-sy-acme-full-0123456780')).toBeUndefined();
  });

  it('should mint generated keys that authenticate', () => {
    expect(generatedKeys).toHaveLength(1);
    const generated = generatedKeys[0];
    expect(generated?.key).toMatch(/^sk-sy-/);
    expect(index.authenticate(generated?.key ?? '')?.key.id).toBe('demo');
  });

  it('should narrow the tenant allow-list by the key allow-list', () => {
    const principal = index.authenticate('sk-sy-acme-narrow-0123456789');
    expect(principal).toBeDefined();
    if (principal === undefined) return;
    expect(index.allows(principal.tenant, principal.key, 'a')).toBe(false);
    expect(index.visibleModels(principal.tenant, principal.key).map((model) => model.name)).toEqual(['b']);
  });
});
