import { vi } from 'vitest';

/** A request the page sent, its JSON body parsed. */
export interface SentRequest {
  method: string;
  path: string;
  body: unknown;
}

/** An answer: JSON, 200 unless told. */
export interface Answer {
  status?: number;
  json: unknown;
}

/**
 * Answers the page's fetches in place of aioscope's REST routes, keyed `METHOD /path` (query
 * dropped), and records each request so a test can assert what the page sent. A route it was not
 * given answers 404 in the server's own error shape. Restore with vi.restoreAllMocks().
 */
export function answerRequests(routes: Record<string, (request: SentRequest) => Answer>): SentRequest[] {
  const sent: SentRequest[] = [];
  vi.spyOn(window, 'fetch').mockImplementation(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input), window.location.href);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
    const request: SentRequest = { method: init?.method ?? 'GET', path: url.pathname, body };
    sent.push(request);
    const route = routes[`${request.method} ${request.path}`];
    const answer = route?.(request) ?? { status: 404, json: { error: `no route ${request.method} ${request.path}` } };
    return new Response(JSON.stringify(answer.json), {
      status: answer.status ?? 200,
      headers: { 'content-type': 'application/json' },
    });
  });
  return sent;
}
