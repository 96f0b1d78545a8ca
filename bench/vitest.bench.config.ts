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
    // Library internals (e.g. ratelimit constants) are still read through the module runner's
    // export getters; the warning is about that, not about the benchmarks' own code.
    benchmark: { include: ['bench/micro/**/*.bench.ts'], suppressExportGetterWarnings: true },
  },
});
