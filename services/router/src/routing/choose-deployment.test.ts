import type { ModelRecord } from '@switchyard/catalog-client';
import { describe, expect, it } from 'vitest';
import { chooseDeployment } from './choose-deployment.ts';
import { DeploymentHealth } from './deployment-health.ts';

function model(overrides: Partial<ModelRecord>): ModelRecord {
  return {
    name: 'm',
    kind: 'chat',
    fallbacks: [],
    deployments: [
      { provider: 'a', model: 'x', weight: 1 },
      { provider: 'b', model: 'y', weight: 3 },
    ],
    info: { id: 'm', created: 0, ownedBy: 'test', kind: 'chat' },
    ...overrides,
  };
}

describe('chooseDeployment', () => {
  it('should pick by weight', () => {
    const health = new DeploymentHealth();
    expect(chooseDeployment(model({}), health, new Set(), () => 0.1)?.provider).toBe('a');
    expect(chooseDeployment(model({}), health, new Set(), () => 0.3)?.provider).toBe('b');
  });

  it('should skip excluded and cooling deployments', () => {
    const health = new DeploymentHealth({ failureThreshold: 1 });
    expect(chooseDeployment(model({}), health, new Set(['b/y']), () => 0.9)?.provider).toBe('a');
    health.begin('a/x');
    health.fail('a/x');
    expect(chooseDeployment(model({}), health, new Set(['b/y']))).toBeUndefined();
  });

  it('should use a lower tier only when the higher one is unavailable', () => {
    const tiered = model({
      deployments: [
        { provider: 'backup', model: 'z', weight: 100, priority: 1 },
        { provider: 'main', model: 'x', weight: 1, priority: 0 },
      ],
    });
    const health = new DeploymentHealth({ failureThreshold: 1 });
    expect(chooseDeployment(tiered, health, new Set(), () => 0.99)?.provider).toBe('main');
    health.begin('main/x');
    health.fail('main/x');
    expect(chooseDeployment(tiered, health, new Set())?.provider).toBe('backup');
  });

  it('should prefer the least busy deployment and the fastest one', () => {
    const health = new DeploymentHealth();
    health.begin('b/y');
    expect(chooseDeployment(model({ strategy: 'least-inflight' }), health, new Set())?.provider).toBe('a');
    health.succeed('b/y', 10);
    health.begin('a/x');
    health.succeed('a/x', 50);
    expect(chooseDeployment(model({ strategy: 'lowest-latency' }), health, new Set())?.provider).toBe('b');
  });

  it('should respect per-deployment rpm capacity', () => {
    const health = new DeploymentHealth();
    const limited = model({ deployments: [{ provider: 'a', model: 'x', weight: 1, rpm: 1 }, { provider: 'b', model: 'y', weight: 1, priority: 1 }] });
    expect(chooseDeployment(limited, health, new Set())?.provider).toBe('a');
    health.begin('a/x');
    expect(chooseDeployment(limited, health, new Set())?.provider).toBe('b');
  });

  it('should treat a lone deployment as the general path does: excluded, cooling and full all mean none', () => {
    const lone = (rpm?: number) => model({ deployments: [{ provider: 'a', model: 'x', weight: 1, ...(rpm === undefined ? {} : { rpm }) }] });
    const health = new DeploymentHealth({ failureThreshold: 1 });
    expect(chooseDeployment(lone(), health, new Set())?.provider).toBe('a');
    expect(chooseDeployment(lone(), health, new Set(['a/x']))).toBeUndefined();
    health.begin('a/x');
    expect(chooseDeployment(lone(1), health, new Set())).toBeUndefined();
    health.fail('a/x');
    expect(chooseDeployment(lone(), health, new Set())).toBeUndefined();
  });
});
