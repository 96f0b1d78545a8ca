import { parseConfig } from '@switchyard/config';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from './build-snapshot.ts';
import { CatalogIndex } from './catalog-index.ts';
import { hashKey } from './hash-key.ts';

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

  it('should hash presented keys exactly as the snapshot hashed them, UTF-8 included', () => {
    const key = 'sk-sy-ünïcode-€-0123456789';
    const withUtf8 = new CatalogIndex({ ...snapshot, keys: [...snapshot.keys, { id: 'utf8', tenantId: 'acme', sha256: hashKey(key), limits: {} }] });
    expect(withUtf8.authenticate(key)?.key.id).toBe('utf8');
    expect(withUtf8.authenticate('sk-sy-unicode-e-0123456789')).toBeUndefined();
  });

  it('should answer one principal per key, and forget a key the next catalog version dropped', () => {
    const first = index.authenticate('sk-sy-acme-full-0123456789');
    expect(index.authenticate('sk-sy-acme-full-0123456789')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const next = new CatalogIndex({ ...snapshot, version: snapshot.version + 1, keys: snapshot.keys.filter((key) => key.id !== 'full') });
    expect(next.authenticate('sk-sy-acme-full-0123456789')).toBeUndefined();
    expect(next.authenticate('sk-sy-acme-narrow-0123456789')?.key.id).toBe('narrow');
  });

  it('should refuse a key whose tenant is not in the snapshot', () => {
    const orphan = new CatalogIndex({ ...snapshot, tenants: snapshot.tenants.filter((tenant) => tenant.id !== 'acme') });
    expect(orphan.authenticate('sk-sy-acme-full-0123456789')).toBeUndefined();
  });
});
