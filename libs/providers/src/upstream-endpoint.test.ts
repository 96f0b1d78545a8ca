import type { ProviderRecord } from '@switchyard/catalog-client';
import { describe, expect, it } from 'vitest';
import { resolveEndpoint } from './upstream-endpoint.ts';

const provider = (overrides: Partial<ProviderRecord>): ProviderRecord => ({
  id: 'p',
  protocol: 'chat-completions',
  speaks: 'chat-completions',
  baseUrl: 'https://api.example.test/v1/',
  apiKeys: [],
  headers: {},
  ...overrides,
});

describe('resolveEndpoint', () => {
  it('should rotate through the provider keys round-robin', () => {
    const endpoint = resolveEndpoint(provider({ apiKeys: ['k1', 'k2', 'k3'] }), undefined);
    expect([1, 2, 3, 4, 5].map(() => endpoint.nextApiKey())).toEqual(['k1', 'k2', 'k3', 'k1', 'k2']);
    expect(resolveEndpoint(provider({}), undefined).nextApiKey()).toBeUndefined();
  });

  it('should split the base URL into origin and path as the vendor SDK takes it', () => {
    const endpoint = resolveEndpoint(provider({}), undefined);
    expect([endpoint.origin, endpoint.basePath]).toEqual(['https://api.example.test', '/v1']);
  });

  it('should point simulator providers at the built-in simulator in the protocol they speak', () => {
    const messages = resolveEndpoint(provider({ protocol: 'simulator', speaks: 'messages', baseUrl: undefined }), 'http://127.0.0.1:9');
    expect([messages.protocol, messages.origin, messages.basePath]).toEqual(['messages', 'http://127.0.0.1:9', '']);
    const chat = resolveEndpoint(provider({ protocol: 'simulator', baseUrl: undefined }), 'http://127.0.0.1:9');
    expect(chat.basePath).toBe('/v1');
    expect(() => resolveEndpoint(provider({ protocol: 'simulator', baseUrl: undefined }), undefined)).toThrow(/simulator/);
  });
});
