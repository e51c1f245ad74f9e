import { useEffect, useState } from 'react';
import { flushSync } from 'react-dom';

/**
 * Counts the page's print requests (print, or save as PDF). Print layout never brings a chart
 * into view, so a chart that skipped redraws off screen compares this count with the one it last
 * drew for, and draws now. The count changes inside the beforeprint event and the component
 * renders (and runs its effects) synchronously, before the browser lays the page out for paper.
 */
export function usePrintRequests(): number {
  const [requests, setRequests] = useState(0);
  useEffect(() => {
    const onBeforePrint = (): void => flushSync(() => setRequests((count) => count + 1));
    window.addEventListener('beforeprint', onBeforePrint);
    return () => window.removeEventListener('beforeprint', onBeforePrint);
  }, []);
  return requests;
}
