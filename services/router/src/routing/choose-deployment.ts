import type { DeploymentRecord, ModelRecord } from '@switchyard/catalog-client';
import { deploymentKey, type DeploymentHealth } from './deployment-health.ts';

export type RoutingStrategy = 'weighted' | 'least-inflight' | 'lowest-latency';

/**
 * Picks a deployment for one attempt. Tiers (`priority`, lowest first) are tried in order: a
 * lower tier is used only when no deployment of a higher one is available. Within a tier the
 * model's strategy decides. `exclude` holds deployments that already failed this request.
 */
export function chooseDeployment(
  model: ModelRecord,
  health: DeploymentHealth,
  exclude: ReadonlySet<string>,
  random: () => number = Math.random,
): DeploymentRecord | undefined {
  if (model.deployments.length === 1) {
    // Most models have one deployment: no tiers to order and nothing to rank, so none of the
    // arrays below is worth building on every request.
    const only = model.deployments[0] as DeploymentRecord;
    const key = deploymentKey(only.provider, only.model);
    return !exclude.has(key) && take(health, only, key) ? only : undefined;
  }
  const tiers = [...new Set(model.deployments.map((deployment) => deployment.priority ?? 0))].sort((a, b) => a - b);
  for (const tier of tiers) {
    const candidates = model.deployments.filter(
      (deployment) => (deployment.priority ?? 0) === tier && !exclude.has(deploymentKey(deployment.provider, deployment.model)),
    );
    // Ordered by the strategy first, so the half-open probe is only taken for the deployment actually used.
    for (const deployment of rank(candidates, model.strategy ?? 'weighted', health, random)) {
      if (take(health, deployment, deploymentKey(deployment.provider, deployment.model))) return deployment;
    }
  }
  return undefined;
}

/** The deployment serves this attempt if its rpm has room and its circuit lets the request through. */
function take(health: DeploymentHealth, deployment: DeploymentRecord, key: string): boolean {
  return health.hasCapacity(key, deployment.rpm) && health.tryAcquire(key);
}

function rank(candidates: DeploymentRecord[], strategy: RoutingStrategy, health: DeploymentHealth, random: () => number): DeploymentRecord[] {
  const key = (deployment: DeploymentRecord) => deploymentKey(deployment.provider, deployment.model);
  switch (strategy) {
    case 'least-inflight':
      return [...candidates].sort((a, b) => health.inflight(key(a)) - health.inflight(key(b)) || a.weight - b.weight);
    case 'lowest-latency':
      // Unmeasured deployments go first so each gets measured.
      return [...candidates].sort((a, b) => (health.latencyMs(key(a)) ?? -1) - (health.latencyMs(key(b)) ?? -1));
    case 'weighted':
      return weightedOrder(candidates, random);
  }
}

/** A weighted random permutation: the first element is a weighted random choice, and so on. */
function weightedOrder(candidates: DeploymentRecord[], random: () => number): DeploymentRecord[] {
  const pool = [...candidates];
  const ordered: DeploymentRecord[] = [];
  while (pool.length > 0) {
    let total = 0;
    for (const deployment of pool) total += deployment.weight;
    let point = random() * total;
    let index = pool.length - 1;
    for (let i = 0; i < pool.length; i++) {
      point -= (pool[i] as DeploymentRecord).weight;
      if (point < 0) {
        index = i;
        break;
      }
    }
    ordered.push(...pool.splice(index, 1));
  }
  return ordered;
}
