import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['libs/**/*.test.ts', 'services/**/*.test.ts'],
          // Unit tests that need Redis start a real server and BullMQ workers: on a loaded 2-core
          // CI machine the first of them can take several seconds.
          testTimeout: 20_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.test.ts'],
          setupFiles: ['test/e2e/support/setup-scratch.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Each file starts its own processes on free ports; files still run one at a time so
          // a 2-core CI machine is not oversubscribed.
          fileParallelism: false,
        },
      },
    ],
  },
});
