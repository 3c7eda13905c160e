import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Timing-sensitive tests run alone afterwards (vitest.serial.config.ts).
    exclude: ['test/**/*.serial.test.ts', 'node_modules/**'],
    // Real backends (containers, TCG VMs) are slow on 2 cores; correctness tests get generous limits.
    testTimeout: 120_000,
    hookTimeout: 600_000,
    // Builds the task image once before any file runs, so parallel files never race a first build.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
  },
});
