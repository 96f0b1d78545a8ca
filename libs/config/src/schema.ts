import { z } from 'zod';

const protocol = z.enum(['chat-completions', 'responses', 'messages', 'generate-content', 'simulator']);
const formatProtocol = z.enum(['chat-completions', 'responses', 'messages', 'generate-content']);

/** The limiter's arithmetic is exact up to 1e9 per limit (libs/ratelimit); larger is refused here, not at the first request. */
const limit = z.number().int().positive().max(1_000_000_000);

const limitSet = z
  .object({
    rpm: limit.optional(),
    tpm: limit.optional(),
    concurrency: limit.optional(),
    dailyTokens: limit.optional(),
    monthlyTokens: limit.optional(),
  })
  .strict();

const provider = z
  .object({
    protocol,
    /** As the vendor SDK's base URL: …/v1 for the two OpenAI formats, the origin for messages and generate-content. */
    baseUrl: z.url().optional(),
    apiKey: z.string().min(1).optional(),
    /** Several keys rotate round-robin (issue 5). */
    apiKeys: z.array(z.string().min(1)).optional(),
    headers: z.record(z.string(), z.string()).default({}),
    /** For `protocol: simulator`: which vendor protocol the built-in simulator speaks for this provider. */
    speaks: formatProtocol.default('chat-completions'),
  })
  .strict()
  .refine((value) => value.protocol === 'simulator' || value.baseUrl !== undefined, {
    message: 'baseUrl is required unless protocol is simulator',
    path: ['baseUrl'],
  });

const deployment = z
  .object({
    provider: z.string().min(1),
    model: z.string().min(1),
    weight: z.number().positive().default(1),
    /** Tier: lower numbers are used first; a higher tier only when no lower one is available. */
    priority: z.number().int().nonnegative().default(0),
    /** Requests per minute this deployment can take (per router process); beyond it the next deployment is used. */
    rpm: z.number().int().positive().optional(),
  })
  .strict();

const model = z
  .object({
    name: z.string().min(1),
    kind: z.enum(['chat', 'embedding']).default('chat'),
    deployments: z.array(deployment).min(1),
    fallbacks: z.array(z.string()).default([]),
    /** Output limit: the default max tokens toward formats that require one (messages). */
    maxOutputTokens: z.number().int().positive().optional(),
    maxInputTokens: z.number().int().positive().optional(),
    displayName: z.string().optional(),
    description: z.string().optional(),
    ownedBy: z.string().default('switchyard'),
    /** Upstream timeouts for this model (ms): until response headers, and the longest silence in a body. */
    timeouts: z
      .object({
        /** Until the upstream's response headers (time to first byte). */
        headersMs: z.number().int().positive().optional(),
        /** Longest silence between two chunks of a body or stream. */
        idleMs: z.number().int().positive().optional(),
        /** One whole non-streaming attempt. */
        attemptMs: z.number().int().positive().optional(),
        /** The whole request, retries and fallbacks included. */
        totalMs: z.number().int().positive().optional(),
      })
      .strict()
      .optional(),
    /** After `failures` consecutive failures a deployment is skipped for `cooldownMs`, then probed. */
    circuitBreaker: z
      .object({ failures: z.number().int().positive().default(3), cooldownMs: z.number().int().positive().default(30_000) })
      .strict()
      .optional(),
    /** Prices in currency units (e.g. USD) per one million tokens; usage is costed with them. */
    prices: z
      .object({ input: z.number().nonnegative(), output: z.number().nonnegative(), cachedInput: z.number().nonnegative().optional() })
      .strict()
      .optional(),
    /** How a deployment is picked within a tier. */
    strategy: z.enum(['weighted', 'least-inflight', 'lowest-latency']).default('weighted'),
    /** Retries before the first byte reaches the client: attempts beyond the first, jittered exponential backoff. */
    retry: z
      .object({
        attempts: z.number().int().nonnegative().default(2),
        backoffMs: z.number().int().nonnegative().default(100),
        maxBackoffMs: z.number().int().nonnegative().default(5000),
      })
      .strict()
      .default({ attempts: 2, backoffMs: 100, maxBackoffMs: 5000 }),
  })
  .strict();

const key = z
  .object({
    id: z.string().min(1),
    /** Plaintext key; only its SHA-256 is kept in memory. */
    key: z.string().min(16).optional(),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')
      .optional(),
    /** Demo only: make a random key at start and print it once (npm start). */
    generate: z.boolean().optional(),
    limits: limitSet.optional(),
    models: z.array(z.string()).optional(),
  })
  .strict()
  .refine((value) => [value.key, value.sha256, value.generate].filter((x) => x !== undefined && x !== false).length === 1, {
    message: 'exactly one of key, sha256 or generate: true is required',
  });

const tenant = z
  .object({
    id: z.string().regex(/^[a-zA-Z0-9._-]+$/, 'letters, digits, dot, dash and underscore only'),
    models: z.array(z.string()).default(['*']),
    limits: limitSet.default({}),
    keys: z.array(key).default([]),
  })
  .strict();

export const configSchema = z
  .object({
    providers: z.record(z.string(), provider).default({}),
    models: z.array(model).default([]),
    tenants: z.array(tenant).default([]),
    limits: z
      .object({
        /**
         * What admission does while Redis is unreachable. A word sets the policy of the rate
         * limits (rpm, tpm, concurrency); token budgets stay closed unless set in the object form.
         */
        onStoreFailure: z
          .union([
            z.enum(['open', 'closed']),
            z.object({ rates: z.enum(['open', 'closed']).default('open'), budgets: z.enum(['open', 'closed']).default('closed') }).strict(),
          ])
          .default('open'),
      })
      .strict()
      .default({ onStoreFailure: 'open' }),
    server: z
      .object({
        /** Request body limit; 32 MiB is the largest vendor limit (design §1). */
        bodyLimitBytes: z.number().int().positive().default(32 * 1024 * 1024),
        /** The keep-alive period: a stream quiet for one to two of them gets a keep-alive (a comment, or messages `ping`). */
        streamKeepAliveMs: z.number().int().positive().default(15_000),
      })
      .strict()
      .default({ bodyLimitBytes: 32 * 1024 * 1024, streamKeepAliveMs: 15_000 }),
  })
  .strict()
  .superRefine((config, context) => {
    const names = new Set(config.models.map((entry) => entry.name));
    config.models.forEach((entry, index) => {
      entry.deployments.forEach((target, deploymentIndex) => {
        if (!(target.provider in config.providers)) {
          context.addIssue({
            code: 'custom',
            message: `unknown provider '${target.provider}'`,
            path: ['models', index, 'deployments', deploymentIndex, 'provider'],
          });
        }
      });
      entry.fallbacks.forEach((fallback, fallbackIndex) => {
        if (!names.has(fallback)) {
          context.addIssue({ code: 'custom', message: `unknown model '${fallback}'`, path: ['models', index, 'fallbacks', fallbackIndex] });
        }
      });
    });
  });

export type SwitchyardConfig = z.infer<typeof configSchema>;
export type ProviderConfig = SwitchyardConfig['providers'][string];
export type ModelConfig = SwitchyardConfig['models'][number];
export type TenantConfig = SwitchyardConfig['tenants'][number];
export type KeyConfig = TenantConfig['keys'][number];
export type LimitSetConfig = TenantConfig['limits'];
