import type { ReactNode } from 'react';
import { getErrorMessage, type FallbackProps } from 'react-error-boundary';

/**
 * What the page shows when a panel throws while drawing: the reason and a way back, instead of an
 * empty page that looks like aioscope stopped. Nothing on the server is affected.
 */
export function PageFailure({ error }: FallbackProps): ReactNode {
  return (
    <main className="page-failure" role="alert">
      <h1>aioscope’s page stopped drawing</h1>
      <p>
        A part of the page failed: <code>{getErrorMessage(error) ?? 'unknown error'}</code>. aioscope itself and its
        recording are not affected.
      </p>
      <button type="button" className="primary" onClick={() => window.location.reload()}>
        Reload the page
      </button>
    </main>
  );
}
