// Import boundaries are errors from the first commit (style-anchors §4, Langfuse's lesson):
// a service never imports another service, libs never import services, and a package is
// reached only through its index or an entry point its package.json declares (`/redis` keeps
// ioredis and BullMQ out of processes without Redis; `worker/query` is the usage query alone;
// `providers/abortable-dispatch` is an undici handler's abort wiring without the providers;
// `usage-events/test-events` builds events for the worker's tests too).
// The gateway CLI is the one place that composes services.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const services = ['ingress', 'router', 'catalog', 'worker', 'gateway'];
const deepImport = {
  group: ['@switchyard/*/*', '!@switchyard/*/redis', '!@switchyard/worker/query', '!@switchyard/providers/abortable-dispatch', '!@switchyard/usage-events/test-events', '!@switchyard/testkit/fresh-process'],
  message: 'Import a Switchyard package through its index or a declared entry point only.',
};
const crossPackageRelative = {
  group: ['../../*/src/*', '../../../libs/*', '../../../services/*'],
  message: 'Import another package by its @switchyard name, not a relative path.',
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'bench/results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', setImmediate: 'readonly', structuredClone: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['libs/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            deepImport,
            crossPackageRelative,
            { group: services.map((name) => `@switchyard/${name}`), message: 'Libraries never import services.' },
          ],
        },
      ],
    },
  },
  ...services
    .filter((name) => name !== 'gateway')
    .map((name) => ({
      files: [`services/${name}/**`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: [
              deepImport,
              crossPackageRelative,
              {
                group: services.filter((other) => other !== name).map((other) => `@switchyard/${other}`),
                message: 'A service never imports another service; share through a lib.',
              },
            ],
          },
        ],
      },
    })),
  {
    files: ['services/gateway/**', 'test/**', 'bench/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [deepImport, crossPackageRelative] }] },
  },
);
