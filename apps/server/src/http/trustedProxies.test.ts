import { describe, expect, it } from 'vitest';
import { isTrustedProxy, parseCidr, parseTrustedProxies, type TrustedProxies } from './trustedProxies.ts';

function proxies(...values: string[]): TrustedProxies {
  const parsed = parseTrustedProxies(values);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.proxies;
}

describe('trusted proxies', () => {
  it('reads IPv4 and IPv6 ranges, and a bare address as itself alone', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('::1/128')).toEqual({ address: '::1', prefix: 128, family: 'ipv6' });
    expect(parseCidr(' 192.168.1.7 ')).toEqual({ address: '192.168.1.7', prefix: 32, family: 'ipv4' });
    expect(parseCidr('fd00::')).toEqual({ address: 'fd00::', prefix: 128, family: 'ipv6' });
  });

  it('refuses what is not a range, naming the value', () => {
    for (const bad of [
      '10.0.0/8',
      '10.0.0.0/33',
      '::1/129',
      '10.0.0.0/',
      '10.0.0.0/0x8',
      'proxy.local',
      '1.2.3.4/8/1',
      '',
    ])
      expect(parseCidr(bad), bad).toBeNull();
    const parsed = parseTrustedProxies(['127.0.0.1/32', '10.0.0/8']);
    expect(parsed).toEqual({
      ok: false,
      error: '--trusted-proxy "10.0.0/8" is not an address or a CIDR range (e.g. 10.0.0.0/8, 127.0.0.1/32, ::1/128)',
    });
  });

  it('matches a peer inside a range, in either family, and nothing else', () => {
    const trusted = proxies('10.0.0.0/8,::1/128', '192.168.4.0/24');
    expect(trusted.ranges).toEqual(['10.0.0.0/8', '::1/128', '192.168.4.0/24']);
    expect(isTrustedProxy(trusted, '10.200.3.4')).toBe(true);
    expect(isTrustedProxy(trusted, '192.168.4.255')).toBe(true);
    expect(isTrustedProxy(trusted, '192.168.5.1')).toBe(false);
    expect(isTrustedProxy(trusted, '::1')).toBe(true);
    expect(isTrustedProxy(trusted, '127.0.0.1')).toBe(false);
    // A dual-stack listener reports IPv4 peers in their mapped form.
    expect(isTrustedProxy(trusted, '::ffff:10.1.2.3')).toBe(true);
    expect(isTrustedProxy(trusted, '::ffff:127.0.0.1')).toBe(false);
    expect(isTrustedProxy(trusted, undefined)).toBe(false);
    expect(isTrustedProxy(trusted, 'not-an-address')).toBe(false);
  });
});
