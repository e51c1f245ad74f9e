import { describe, expect, it } from 'vitest';
import { identifyRequest, type AccessPolicy } from './access.ts';
import { parseTrustedProxies } from './trustedProxies.ts';

function proxyPolicy(...ranges: string[]): AccessPolicy {
  const parsed = parseTrustedProxies(ranges);
  if (!parsed.ok) throw new Error(parsed.error);
  return {
    kind: 'proxy',
    proxy: { header: 'X-Forwarded-User', trusted: parsed.proxies, operators: new Set(['alice']) },
  };
}

/** A request as node hands it over: its headers (names in lower case) and its TCP peer. */
function request(peer: string, headers: Record<string, string> = {}) {
  return { headers, socket: { remoteAddress: peer } } as unknown as Parameters<typeof identifyRequest>[0];
}

const noCookies = (): Record<string, string> => ({});

describe('identifyRequest', () => {
  const policy = proxyPolicy('10.0.0.0/8', '::1/128');

  it('is the user the header names when the peer is a trusted proxy, with the role --operators gives', () => {
    expect(identifyRequest(request('10.1.2.3', { 'x-forwarded-user': 'alice' }), policy, noCookies)).toEqual({
      ok: true,
      identity: { user: 'alice', role: 'operator', via: 'proxy', operatorOnly: null },
    });
    const bob = identifyRequest(request('::1', { 'x-forwarded-user': ' bob ' }), policy, noCookies);
    expect(bob.ok && bob.identity.user).toBe('bob');
    expect(bob.ok && bob.identity.role).toBe('viewer');
  });

  it('refuses the header from an untrusted peer, and says it is worth a log line', () => {
    const verdict = identifyRequest(request('127.0.0.1', { 'x-forwarded-user': 'alice' }), policy, noCookies);
    expect(verdict).toEqual({
      ok: false,
      status: 403,
      error:
        'the X-Forwarded-User header came from 127.0.0.1, which is not a trusted proxy: refused (--trusted-proxy 10.0.0.0/8,::1/128)',
      warn: 'refused a request from 127.0.0.1 carrying X-Forwarded-User: not a trusted proxy',
    });
  });

  it('refuses an untrusted peer without the header, and the trusted proxy when it sends no user (or a blank one)', () => {
    const untrusted = identifyRequest(request('192.168.1.1'), policy, noCookies);
    expect(untrusted).toMatchObject({ ok: false, status: 403 });
    expect(!untrusted.ok && untrusted.error).toMatch(/reached through its auth proxy only: 192\.168\.1\.1/);
    const noUser: Record<string, string>[] = [{}, { 'x-forwarded-user': '   ' }];
    for (const headers of noUser) {
      const verdict = identifyRequest(request('10.0.0.1', headers), policy, noCookies);
      expect(verdict).toMatchObject({ ok: false, status: 401 });
      expect(!verdict.ok && verdict.error).toMatch(/the auth proxy at 10\.0\.0\.1 sent no X-Forwarded-User header/);
    }
  });

  it('keeps the token as before: its holder is an operator, anyone else is asked for it', () => {
    const token: AccessPolicy = { kind: 'token', token: 'test-token-0123456789' };
    const holder = identifyRequest(
      request('192.168.1.1', { authorization: 'Bearer test-token-0123456789' }),
      token,
      noCookies,
    );
    expect(holder).toEqual({ ok: true, identity: { user: null, role: 'operator', via: 'token', operatorOnly: null } });
    // A proxy header means nothing without --auth-proxy-header.
    const stranger = identifyRequest(request('10.0.0.1', { 'x-forwarded-user': 'alice' }), token, noCookies);
    expect(stranger).toMatchObject({ ok: false, status: 401 });
    expect(identifyRequest(request('127.0.0.1'), { kind: 'loopback' }, noCookies)).toMatchObject({
      ok: true,
      identity: { role: 'operator', via: 'loopback' },
    });
  });

  it('refuses on loopback without a token a request that came through a proxy, whoever it says it is', () => {
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const verdict = identifyRequest(
        request('127.0.0.1', { [header]: '203.0.113.7' }),
        { kind: 'loopback' },
        noCookies,
      );
      expect(verdict).toMatchObject({ ok: false, status: 403 });
      expect(!verdict.ok && verdict.error).toContain(`it carries ${header}`);
      expect(!verdict.ok && verdict.error).toMatch(/--token, or with --auth-proxy-header and --trusted-proxy/);
    }
    // The token still lets the proxied request in: that is what a proxy in front needs.
    const token: AccessPolicy = { kind: 'token', token: 'test-token-0123456789' };
    const proxied = request('127.0.0.1', {
      'x-forwarded-for': '203.0.113.7',
      authorization: 'Bearer test-token-0123456789',
    });
    expect(identifyRequest(proxied, token, noCookies)).toMatchObject({ ok: true, identity: { via: 'token' } });
  });
});
