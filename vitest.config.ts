import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import { componentTestCommands } from './apps/web/src/testing/browserCommands.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './e2e/support/chromium.ts';

/**
 * Four layers, each its own project: unit (pure code, recorded fixtures), component (the page's
 * components rendered in Debian's Chromium, fed recorded payloads), integration (a real embedded
 * PostgreSQL 18 started by the test), e2e (the real app in Debian's Chromium).
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
        // Bundled before the first test: found mid-run, Vite reloads the page and a test runs twice.
        optimizeDeps: {
          include: [
            'react',
            'react-dom',
            'react-dom/client',
            'uplot',
            'zod',
            '@tanstack/react-query',
            'vitest-browser-react',
          ],
        },
        test: {
          name: 'component',
          include: ['apps/web/src/**/*.test.tsx'],
          browser: {
            enabled: true,
            headless: true,
            // Debian's Chromium, never a browser downloaded at test time.
            provider: playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS } }),
            instances: [{ browser: 'chromium' }],
            commands: componentTestCommands,
            screenshotFailures: false,
          },
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
          // Most polls wait on a server round trip or on live frames, which a busy two-core machine
          // can hold up for more than the default second; a value that never comes still fails.
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
