import { apiErrorSchema, type Schema } from '@aioscope/spec';
import { payloadChecker } from './checkPayload.ts';

/**
 * The web app's one way to talk REST: JSON in and out, every answer parsed with its spec schema
 * (a body that does not match is an error, never a cast), every refusal an Error carrying the
 * server's sentence.
 */

/** The Error for a refused request: the server's own sentence when it sent one, else the status. */
export function refusal(what: string, status: number, answer: unknown): Error {
  const parsed = apiErrorSchema.safeParse(answer);
  return new Error(parsed.success ? parsed.data.error : `${what}: HTTP ${status}`);
}

/** A response's JSON answer parsed with its spec schema; a refusal throws `refusal`. */
export async function checkedAnswer<T>(method: string, url: string, schema: Schema<T>, response: Response): Promise<T> {
  const answer: unknown = await response.json().catch(() => null);
  if (!response.ok) throw refusal(url, response.status, answer);
  const checked = payloadChecker.check(`${method} ${url}`, schema, answer);
  if (checked === undefined) throw new Error(`${url}: the server's answer was not understood (see the console)`);
  return checked;
}

/** GET `url`, parsed with its spec schema. */
export async function fetchChecked<T>(url: string, schema: Schema<T>): Promise<T> {
  return checkedAnswer('GET', url, schema, await fetch(url, { headers: { accept: 'application/json' } }));
}

/** POST `body` (JSON; none for a bare action) to `url` and parse the answer with its spec schema. */
export async function postChecked<T>(url: string, schema: Schema<T>, body?: unknown): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return checkedAnswer('POST', url, schema, response);
}
