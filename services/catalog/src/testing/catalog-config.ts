import { parseConfig, type SwitchyardConfig } from '@switchyard/config';

export const ACME_CI_KEY = 'sk-sy-acme-ci-0123456789abcdef';

/** A small config: one simulator provider, two models, one tenant with one key. */
export const CATALOG_YAML = `
providers:
  sim: { protocol: simulator }
models:
  - { name: fast-chat, deployments: [{ provider: sim, model: m1 }] }
  - { name: big-chat, deployments: [{ provider: sim, model: m2 }] }
tenants:
  - id: acme
    models: ["*"]
    limits: { rpm: 600 }
    keys:
      - { id: ci, key: ${ACME_CI_KEY} }
`;

export function catalogConfig(text = CATALOG_YAML): SwitchyardConfig {
  return parseConfig(text, 'test.yaml', {});
}
