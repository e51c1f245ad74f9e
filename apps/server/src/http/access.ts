import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** The cookie a browser keeps after opening the tokened URL once. */
export const TOKEN_COOKIE = 'aioscope_token';
export const MIN_TOKEN_LENGTH = 16;

/** Loopback addresses: only this machine can reach them, so no token is needed. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

function sameToken(candidate: string | undefined, token: string): boolean {
  if (candidate === undefined) return false;
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A request carries the token as a bearer header or as the cookie set by the tokened URL. Cookies
 * are parsed by @fastify/cookie's parser, for REST and the socket handshake alike.
 */
export function requestHasToken(
  request: Pick<IncomingMessage, 'headers'>,
  token: string,
  parseCookie: (header: string) => Record<string, string | undefined>,
): boolean {
  const authorization = request.headers.authorization;
  const bearer = authorization?.startsWith('Bearer ') === true ? authorization.slice(7) : undefined;
  if (sameToken(bearer, token)) return true;
  const header = request.headers.cookie;
  return header !== undefined && sameToken(parseCookie(header)[TOKEN_COOKIE], token);
}

/**
 * The one route open without the token: GET (and HEAD) /api/health, matched as the route fastify
 * found, so no other URL can pass for it. A container's HEALTHCHECK or an orchestrator's probe asks
 * it without the token. It answers `{"ok":true}` and nothing else: that an aioscope is listening,
 * which the 401 of any other URL says as well (its message names aioscope); no target, server,
 * version, setting or state.
 */
export const OPEN_ROUTE = '/api/health';

/**
 * Token access for a dashboard listening beyond loopback: the page, the REST API and the socket
 * all need it (all but OPEN_ROUTE). Opening `/?token=…` once stores it in an HttpOnly,
 * SameSite=Strict cookie and redirects to a URL without it. Needs @fastify/cookie registered.
 */
export function registerAccessControl(app: FastifyInstance, token: string): void {
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.url === OPEN_ROUTE && (request.method === 'GET' || request.method === 'HEAD'))
      return undefined;
    const fromQuery = (request.query as { token?: unknown } | undefined)?.token;
    if (typeof fromQuery === 'string' && sameToken(fromQuery, token)) {
      const path = request.url.split('?')[0] ?? '/';
      return reply
        .setCookie(TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'strict', path: '/' })
        .redirect(path, 303);
    }
    if (requestHasToken(request.raw, token, (header) => app.parseCookie(header))) return undefined;
    return reply.code(401).send({
      error:
        'aioscope needs its access token: open the URL it printed at start-up, or send Authorization: Bearer <token>',
    });
  });
}
