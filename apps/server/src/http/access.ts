import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '@aioscope/spec';
import { identity, roleOf } from './roles.ts';
import { isTrustedProxy, type TrustedProxies } from './trustedProxies.ts';

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

function bearerOf(request: Pick<IncomingMessage, 'headers'>): string | undefined {
  const authorization = request.headers.authorization;
  return authorization?.startsWith('Bearer ') === true ? authorization.slice(7) : undefined;
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
  if (sameToken(bearerOf(request), token)) return true;
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
 * Open as well, for an orchestrator's readiness probe (which sends no token and does not come
 * through the auth proxy): whether the shared store and the live adapter answer, and why not. It
 * names no target or setting; a reason may name the store's or Redis's host, never a password.
 */
export const OPEN_READY_ROUTE = '/api/ready';
const OPEN_ROUTES: ReadonlySet<string> = new Set([OPEN_ROUTE, OPEN_READY_ROUTE]);
/**
 * What --metrics-token opens, as a bearer only (no cookie, no query): a scraper cannot pass an
 * SSO proxy, and trusting its address as a proxy would let it name any user, operators too.
 */
export const METRICS_ROUTE = '/metrics';

/** The header an auth proxy (oauth2-proxy, nginx auth_request) sets to the user it authenticated. */
export interface AuthProxy {
  /** As given to --auth-proxy-header; matched without regard to case, as HTTP header names are. */
  readonly header: string;
  readonly trusted: TrustedProxies;
  readonly operators: ReadonlySet<string>;
}

/**
 * Who may come in: anyone who reaches a loopback address (this machine's users, operators as
 * before), the holder of the shared token (an operator), or the user an auth proxy names.
 */
export type AccessPolicy =
  | { readonly kind: 'loopback' }
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'proxy'; readonly proxy: AuthProxy };

export type AccessVerdict =
  | { ok: true; identity: Identity }
  | {
      ok: false;
      status: 401 | 403;
      error: string;
      /** Refusals worth a line in the log (a forged header). */ warn?: string;
    };

const TOKEN_MISSING =
  'aioscope needs its access token: open the URL it printed at start-up, or send Authorization: Bearer <token>';

/** Headers a reverse proxy adds (nginx, oauth2-proxy, Caddy, Traefik): the request came through one. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** The header that says a request came through a proxy, or null. */
function forwardingHeader(request: Pick<IncomingMessage, 'headers'>): string | null {
  return FORWARDING_HEADERS.find((name) => request.headers[name] !== undefined) ?? null;
}

/** The user the proxy header names, or null when it is absent or blank. */
function headerUser(request: Pick<IncomingMessage, 'headers'>, header: string): string | null {
  const value = request.headers[header.toLowerCase()];
  const text = (Array.isArray(value) ? value.join(',') : (value ?? '')).trim();
  return text === '' ? null : text;
}

/**
 * The one check of every request and socket handshake (not OPEN_ROUTE): who it is, or why it is
 * refused. Behind an auth proxy the header is believed only from a trusted peer, and required from it.
 */
export function identifyRequest(
  request: Pick<IncomingMessage, 'headers' | 'socket'>,
  policy: AccessPolicy,
  parseCookie: (header: string) => Record<string, string | undefined>,
): AccessVerdict {
  if (policy.kind === 'loopback') {
    // Loopback is let in because only this machine's users reach it; through a proxy on this
    // machine (deploy/team/nginx.conf sends X-Forwarded-For) anyone who reaches the proxy would be.
    const forwarded = forwardingHeader(request);
    if (forwarded !== null)
      return {
        ok: false,
        status: 403,
        error:
          `this request came through a proxy (it carries ${forwarded}), and aioscope lets in without a token only ` +
          'who reaches its loopback address directly: behind a proxy start it with --token, or with ' +
          '--auth-proxy-header and --trusted-proxy (README "Team deployment")',
      };
    return { ok: true, identity: identity(null, 'operator', 'loopback') };
  }
  if (policy.kind === 'token') {
    return requestHasToken(request, policy.token, parseCookie)
      ? { ok: true, identity: identity(null, 'operator', 'token') }
      : { ok: false, status: 401, error: TOKEN_MISSING };
  }
  const { header, trusted, operators } = policy.proxy;
  const peer = request.socket.remoteAddress ?? 'an unknown address';
  const user = headerUser(request, header);
  if (!isTrustedProxy(trusted, request.socket.remoteAddress)) {
    if (user === null)
      return {
        ok: false,
        status: 403,
        error: `aioscope is reached through its auth proxy only: ${peer} is not a trusted proxy (--trusted-proxy ${trusted.ranges.join(',')})`,
      };
    return {
      ok: false,
      status: 403,
      error: `the ${header} header came from ${peer}, which is not a trusted proxy: refused (--trusted-proxy ${trusted.ranges.join(',')})`,
      warn: `refused a request from ${peer} carrying ${header}: not a trusted proxy`,
    };
  }
  if (user === null)
    return {
      ok: false,
      status: 401,
      error: `the auth proxy at ${peer} sent no ${header} header: it must authenticate every request before aioscope`,
    };
  return { ok: true, identity: identity(user, roleOf(user, operators), 'proxy') };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the access hook on every request but OPEN_ROUTE. */
    identity: Identity | null;
  }
}

/**
 * Access for every request: the page, the REST API and the socket (all but OPEN_ROUTE). With the
 * token, opening `/?token=…` once stores it in an HttpOnly, SameSite=Strict cookie and redirects to
 * a URL without it. Needs @fastify/cookie registered.
 */
export function registerAccessControl(app: FastifyInstance, policy: AccessPolicy, metricsToken?: string): void {
  app.decorateRequest('identity', null);
  app.addHook('onRequest', async (request, reply) => {
    const url = request.routeOptions.url;
    const reading = request.method === 'GET' || request.method === 'HEAD';
    if (url !== undefined && OPEN_ROUTES.has(url) && reading) return undefined;
    if (
      metricsToken !== undefined &&
      url === METRICS_ROUTE &&
      reading &&
      sameToken(bearerOf(request.raw), metricsToken)
    ) {
      request.identity = identity(null, 'viewer', 'token');
      return undefined;
    }
    if (policy.kind === 'token') {
      const fromQuery = (request.query as { token?: unknown } | undefined)?.token;
      if (typeof fromQuery === 'string' && sameToken(fromQuery, policy.token)) {
        const path = request.url.split('?')[0] ?? '/';
        return reply
          .setCookie(TOKEN_COOKIE, policy.token, { httpOnly: true, sameSite: 'strict', path: '/' })
          .redirect(path, 303);
      }
    }
    const verdict = identifyRequest(request.raw, policy, (header) => app.parseCookie(header));
    if (verdict.ok) {
      request.identity = verdict.identity;
      return undefined;
    }
    if (verdict.warn !== undefined) request.log.warn({ url: request.url }, verdict.warn);
    return reply.code(verdict.status).send({ error: verdict.error });
  });
}

/**
 * A route's preHandler for what writes to a watched server: the lab's and the race's starts and
 * cancels. The server's check, whatever the page shows.
 */
export async function requireOperator(request: FastifyRequest, reply: FastifyReply): Promise<undefined | FastifyReply> {
  const reason = request.identity === null ? 'Needs the operator role.' : request.identity.operatorOnly;
  if (reason === null) return undefined;
  return reply.code(403).send({ error: reason });
}
