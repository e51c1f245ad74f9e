import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import type { TargetSummary } from '@aioscope/spec';
import type { ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-react';
import type { LiveConnection } from '../live/liveStore.ts';
import { answerRequests } from '../testing/fakeApi.ts';
import { recordedPayloads } from '../testing/recorded.ts';
import { Header } from './Header.tsx';

/** The recorded PostgreSQL 18 server, live. */
let target: TargetSummary;

beforeAll(async () => {
  target = (await recordedPayloads('pg18.4-embedded-worker')).summary;
});

afterEach(() => {
  vi.restoreAllMocks();
});

async function renderHeader(shown: TargetSummary): Promise<void> {
  answerRequests({
    'GET /api/me': () => ({ json: { user: null, role: 'operator', via: 'loopback', operatorOnly: null } }),
  });
  const connection: LiveConnection = {
    socketState: 'connected',
    socketError: null,
    status: shown.status,
    lastReceivedAt: Date.now(),
  };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const wrapper = ({ children }: { children: ReactNode }): ReactNode => (
    <QueryClientProvider client={client}>{children}</QueryClientProvider>
  );
  await render(
    <Header target={shown} connection={connection} now={Date.now()} theme="dark" onToggleTheme={() => undefined} />,
    { wrapper },
  );
}

describe('Header', () => {
  test('names the replica sampling the server when replicas share the servers', async () => {
    await renderHeader({ ...target, replica: 'c' });
    await expect.element(page.getByTestId('sampled-by')).toHaveTextContent('· sampled by replica c');
    await page.getByRole('button', { name: 'About sample rates' }).click();
    await expect.element(page.getByText(/replica c samples this one, and any replica shows it live/)).toBeVisible();
  });

  test('says nothing of replicas for a single process', async () => {
    await renderHeader(target);
    await expect.element(page.getByTestId('connection-state')).toHaveTextContent('live');
    expect(page.getByTestId('sampled-by').elements()).toHaveLength(0);
  });
});
