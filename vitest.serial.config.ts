import { defineConfig } from 'vitest/config';

/**
 * Tests whose verdict depends on real timings (a regression gate on real runs) run alone, after the
 * parallel suite, so a TCG VM booting in a neighbouring test file cannot make them flaky.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.serial.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
  },
});
