import { lazy, memo, Suspense, useState, type ComponentType, type LazyExoticComponent, type ReactNode } from 'react';
import { ErrorBoundary, getErrorMessage } from 'react-error-boundary';
import { retryingImport } from './retryingImport.ts';

/**
 * A component from a chunk of its own, fetched when it first renders, so that what is at the top
 * of the page does not wait for its script. The fetch is retried (a page stays open while aioscope
 * restarts: retryingImport.ts); a new lazy component is made for a retry by hand because React.lazy
 * keeps a failed load for good. Until the chunk is in, `placeholder` (a box of the same size);
 * when it cannot be loaded, a sentence naming `what` and a button to try again.
 */
export function lazyComponent<P extends object, M>(
  what: string,
  importModule: () => Promise<M>,
  pick: (module: M) => ComponentType<P>,
  placeholder: (props: P) => ReactNode,
  failureStyle?: (props: P) => { height: number },
): ComponentType<P> {
  const make = (): LazyExoticComponent<ComponentType<P>> =>
    lazy(async () => ({ default: pick(await retryingImport(importModule)) }));
  return memo(function LazyComponent(props: P): ReactNode {
    const [Loaded, setLoaded] = useState(make);
    return (
      <ErrorBoundary
        onReset={() => setLoaded(make)}
        fallbackRender={({ error, resetErrorBoundary }) => (
          <div className="chart chart-failed" style={failureStyle?.(props)} role="alert">
            <p>
              The {what} could not be loaded from aioscope ({getErrorMessage(error) ?? 'unknown error'}).
            </p>
            <button type="button" className="link" onClick={resetErrorBoundary}>
              Try again
            </button>
          </div>
        )}
      >
        <Suspense fallback={placeholder(props)}>
          <Loaded {...props} />
        </Suspense>
      </ErrorBoundary>
    );
  }) as unknown as ComponentType<P>;
}
