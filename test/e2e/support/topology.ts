import { writeConfig } from './scratch.ts';
import { getFreePort } from '@switchyard/testkit';
import { startSwitchyard, type SwitchyardProcess } from './start-process.ts';

export type TopologyKind = 'all' | 'split';

export interface Topology {
  kind: TopologyKind;
  /** The public endpoint clients talk to. */
  url: string;
  /** The simulator upstream, a separate process. */
  simulatorUrl: string;
  processes: SwitchyardProcess[];
  /** Combined output of every Switchyard process (not the simulator). */
  output(): string;
  stop(): Promise<void>;
}

export const TEST_KEY = 'sk-sy-e2e-tenant-key-0123456789abcdef';
export const OTHER_TENANT_KEY = 'sk-sy-e2e-other-tenant-key-0123456789';
export const UPSTREAM_KEY = 'upstream-secret-key-e2e';
/** Split topologies run with an internal token by default, so the authenticated hops are the ones tested. */
export const INTERNAL_TOKEN = 'e2e-internal-token-0123456789abcdef';

/** One public model per upstream protocol, all served by the one simulator process. */
export const MODEL_FOR_PROTOCOL = {
  'chat-completions': 'model-chat',
  responses: 'model-responses',
  messages: 'model-messages',
  'generate-content': 'model-gemini',
} as const;

function configText(simulatorUrl: string): string {
  return `
providers:
  up-chat: { protocol: chat-completions, baseUrl: ${simulatorUrl}/v1, apiKey: \${UPSTREAM_KEY} }
  up-responses: { protocol: responses, baseUrl: ${simulatorUrl}/v1, apiKey: \${UPSTREAM_KEY} }
  up-messages: { protocol: messages, baseUrl: ${simulatorUrl}, apiKey: \${UPSTREAM_KEY} }
  up-gemini: { protocol: generate-content, baseUrl: ${simulatorUrl}, apiKey: \${UPSTREAM_KEY} }
  up-dead: { protocol: chat-completions, baseUrl: http://127.0.0.1:9/v1 }
models:
  # Tests break these models' answers on purpose, many times over: a circuit that does not open
  # keeps them testing the formats (routing.e2e tests the circuit).
  - { name: model-chat, deployments: [{ provider: up-chat, model: sim-chat-model }], maxOutputTokens: 2048, circuitBreaker: { failures: 1000, cooldownMs: 1000 } }
  - { name: model-responses, deployments: [{ provider: up-responses, model: sim-responses-model }], maxOutputTokens: 2048, circuitBreaker: { failures: 1000, cooldownMs: 1000 } }
  - { name: model-messages, deployments: [{ provider: up-messages, model: sim-messages-model }], maxOutputTokens: 2048, circuitBreaker: { failures: 1000, cooldownMs: 1000 } }
  - { name: model-gemini, deployments: [{ provider: up-gemini, model: sim-gemini-model }], maxOutputTokens: 2048, circuitBreaker: { failures: 1000, cooldownMs: 1000 } }
  - { name: embed-chat, kind: embedding, deployments: [{ provider: up-chat, model: sim-embedding }] }
  - { name: embed-gemini, kind: embedding, deployments: [{ provider: up-gemini, model: sim-gemini-embedding }] }
  - { name: dead-model, deployments: [{ provider: up-dead, model: nothing }] }
  - { name: slow-model, deployments: [{ provider: up-chat, model: sim-slow }], timeouts: { headersMs: 300 } }
  - { name: hidden-model, deployments: [{ provider: up-chat, model: sim-hidden }] }
server:
  bodyLimitBytes: 1048576
tenants:
  - id: e2e
    models: [model-chat, model-responses, model-messages, model-gemini, embed-chat, embed-gemini, dead-model, slow-model]
    keys:
      - { id: e2e-key, key: \${E2E_KEY} }
  - id: other
    models: [hidden-model]
    keys:
      - { id: other-key, key: \${OTHER_KEY} }
`;
}

/**
 * Starts the simulator as its own process and Switchyard in front of it: one `all` process,
 * or catalog + router + ingress as three processes (split mode).
 */
export async function startTopology(kind: TopologyKind, options: { env?: Record<string, string> } = {}): Promise<Topology> {
  const simulator = await startSwitchyard('simulator', { port: await getFreePort(), readyPath: '/_sim/stats' });
  const config = writeConfig(configText(simulator.url));
  const env = { UPSTREAM_KEY, E2E_KEY: TEST_KEY, OTHER_KEY: OTHER_TENANT_KEY, SWITCHYARD_INTERNAL_TOKEN: INTERNAL_TOKEN, ...options.env };
  const processes: SwitchyardProcess[] = [];
  const stopAll = async () => {
    await Promise.all([...processes, simulator].map((process) => process.stop()));
  };
  try {
    if (kind === 'all') {
      processes.push(await startSwitchyard('all', { port: await getFreePort(), config, env }));
    } else {
      const catalog = await startSwitchyard('catalog', { port: await getFreePort(), config, env });
      processes.push(catalog);
      const router = await startSwitchyard('router', { port: await getFreePort(), env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url } });
      processes.push(router);
      processes.push(
        await startSwitchyard('ingress', {
          port: await getFreePort(),
          env: { ...env, SWITCHYARD_CATALOG_URL: catalog.url, SWITCHYARD_ROUTER_URL: router.url },
        }),
      );
    }
  } catch (error) {
    await stopAll();
    throw error;
  }
  const front = processes[processes.length - 1];
  if (front === undefined) throw new Error('no process started');
  return {
    kind,
    url: front.url,
    simulatorUrl: simulator.url,
    processes,
    output: () => processes.map((process) => process.output()).join('\n'),
    stop: stopAll,
  };
}
