import { defineConfig } from 'vitest/config';

/**
 * Microbenchmarks only (`bench/micro/*.bench.ts`), apart from the unit and e2e projects of the
 * root config. Run:
 *
 *   npx vitest bench --run --config bench/vitest.bench.config.ts
 */
export default defineConfig({
  test: {
    include: [],
    benchmark: { include: ['bench/micro/**/*.bench.ts'] },
  },
});
