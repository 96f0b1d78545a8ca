import type { ModelRecord } from '@switchyard/catalog-client';
import { describe, expect, it } from 'vitest';
import { selectDeployment } from './select-deployment.ts';

const model = {
  name: 'm',
  deployments: [
    { provider: 'a', model: 'x', weight: 1 },
    { provider: 'b', model: 'y', weight: 3 },
  ],
} as ModelRecord;

describe('selectDeployment', () => {
  it('should pick by weight', () => {
    expect(selectDeployment(model, () => 0.1).provider).toBe('a');
    expect(selectDeployment(model, () => 0.3).provider).toBe('b');
    expect(selectDeployment(model, () => 0.99).provider).toBe('b');
  });
});
