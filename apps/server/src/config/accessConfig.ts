// The team-access flags of `start` (--auth-proxy-header, --trusted-proxy, --operators): what each
// value must be, with the one-line message a bad one gets. config.ts calls it before its schema.
import { z } from 'zod';
import type { AuthProxy } from '../http/access.ts';
import { parseOperators } from '../http/roles.ts';
import { parseTrustedProxies } from '../http/trustedProxies.ts';

/** RFC 9110's token: what a header name may be made of. */
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The auth proxy as configured: plain data (AppConfig stays comparable), made an AuthProxy at start. */
export const authProxyConfigSchema = z
  .object({
    header: z.string(),
    trustedProxies: z.array(z.string()),
    operators: z.array(z.string()),
  })
  .strict()
  .nullable();
export type AuthProxyConfig = z.infer<typeof authProxyConfigSchema>;

export interface AccessFlags {
  header: string | undefined;
  trustedProxies: readonly string[];
  operators: readonly string[];
  /** --token or AIOSCOPE_TOKEN was given. */
  tokenGiven: boolean;
}

/** The flags checked together: the auth proxy (or null: the token or loopback, as before), or the error line. */
export function readAccessFlags(
  flags: AccessFlags,
): { ok: true; authProxy: AuthProxyConfig } | { ok: false; error: string } {
  const { header, trustedProxies, operators } = flags;
  if (header === undefined) {
    if (trustedProxies.length > 0)
      return { ok: false, error: '--trusted-proxy needs --auth-proxy-header: it says who may send that header' };
    if (operators.length > 0)
      return {
        ok: false,
        error: '--operators names users of --auth-proxy-header; with the token, its holder is the operator',
      };
    return { ok: true, authProxy: null };
  }
  if (!HTTP_TOKEN.test(header))
    return {
      ok: false,
      error: `--auth-proxy-header "${header}" is not an HTTP header name (letters, digits and !#$%&'*+-.^_\`|~, e.g. X-Forwarded-User)`,
    };
  if (trustedProxies.length === 0)
    return {
      ok: false,
      error:
        '--auth-proxy-header needs at least one --trusted-proxy CIDR: without it anyone could send the header and be that user',
    };
  if (flags.tokenGiven)
    return {
      ok: false,
      error:
        '--auth-proxy-header replaces --token (and AIOSCOPE_TOKEN): behind the proxy, it authenticates every request',
    };
  const parsed = parseTrustedProxies(trustedProxies);
  if (!parsed.ok) return parsed;
  const operatorNames = parseOperators(operators);
  // `--operators ""` (an unset variable in a unit file) would otherwise leave the team without operators, unsaid.
  if (operators.length > 0 && operatorNames.length === 0)
    return {
      ok: false,
      error: '--operators names no user: give names separated by commas (e.g. alice,bob), or leave it out',
    };
  return {
    ok: true,
    authProxy: { header, trustedProxies: [...parsed.proxies.ranges], operators: operatorNames },
  };
}

/** The configured proxy as the app checks it (its ranges were read by readAccessFlags already). */
export function authProxyOf(config: NonNullable<AuthProxyConfig>): AuthProxy {
  const parsed = parseTrustedProxies(config.trustedProxies);
  if (!parsed.ok) throw new Error(parsed.error);
  return { header: config.header, trusted: parsed.proxies, operators: new Set(config.operators) };
}
