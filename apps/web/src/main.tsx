// First: configures the schema parser before any spec schema is built (see packages/spec/src/jitless.ts).
import '@aioscope/spec/jitless';
import { StrictMode, Suspense, lazy } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { ErrorBoundary } from 'react-error-boundary';
import { App } from './App.tsx';
import { PageFailure } from './app/PageFailure.tsx';
import { COMPARE_PATH } from './compare/compareLink.ts';
import './styles.css';

/** Compare is a page of its own (/compare?…): its script loads only where it is shown. */
const ComparePage = lazy(async () => ({ default: (await import('./compare/ComparePage.tsx')).ComparePage }));
const page = window.location.pathname === COMPARE_PATH ? <ComparePage /> : <App />;

const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } } });
const root = document.getElementById('root');
if (root === null) throw new Error('#root missing from index.html');
createRoot(root).render(
  <StrictMode>
    <ErrorBoundary FallbackComponent={PageFailure}>
      <QueryClientProvider client={queryClient}>
        <Suspense fallback={null}>{page}</Suspense>
      </QueryClientProvider>
    </ErrorBoundary>
  </StrictMode>,
);
