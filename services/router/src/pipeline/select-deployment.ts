import type { DeploymentRecord, ModelRecord } from '@switchyard/catalog-client';

/** Weighted random choice among a model's deployments. */
export function selectDeployment(model: ModelRecord, random: () => number = Math.random): DeploymentRecord {
  const deployments = model.deployments;
  if (deployments.length === 1) return deployments[0] as DeploymentRecord;
  let total = 0;
  for (const deployment of deployments) total += deployment.weight;
  let point = random() * total;
  for (const deployment of deployments) {
    point -= deployment.weight;
    if (point < 0) return deployment;
  }
  return deployments[deployments.length - 1] as DeploymentRecord;
}
