import { defineConfig } from 'vitest/config';

/**
 * Three layers, each its own project: unit (pure code, recorded fixtures), integration (a real
 * embedded PostgreSQL 18 started by the test), e2e (the real app in Debian's Chromium).
 * Integration and e2e share one machine's two cores and a real server: one file at a time.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: [
            'packages/*/src/**/*.test.ts',
            'apps/*/src/**/*.test.ts',
            'apps/web/scripts/**/*.test.ts',
            'bench/lib/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['apps/server/test/**/*.int.test.ts', 'apps/web/scripts/**/*.int.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.e2e.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
