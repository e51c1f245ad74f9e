import { describe, expect, it } from 'vitest';
import { isTrustedProxy } from '../http/trustedProxies.ts';
import { authProxyOf } from './accessConfig.ts';
import { parseConfig } from './config.ts';

function result(argv: string[], env: NodeJS.ProcessEnv = {}) {
  return parseConfig(argv, env);
}

describe('team access flags', () => {
  it('reads the header, every trusted range and the operators; the host may then leave loopback without a token', () => {
    const parsed = result([
      '--host',
      '0.0.0.0',
      '--auth-proxy-header',
      'X-Forwarded-User',
      '--trusted-proxy',
      '10.0.0.0/8',
      '--trusted-proxy',
      '127.0.0.1/32,::1/128',
      '--operators',
      'alice,bob',
    ]);
    if (parsed.ok !== true) throw new Error(JSON.stringify(parsed));
    expect(parsed.config.token).toBeUndefined();
    expect(parsed.config.authProxy).toEqual({
      header: 'X-Forwarded-User',
      trustedProxies: ['10.0.0.0/8', '127.0.0.1/32', '::1/128'],
      operators: ['alice', 'bob'],
    });
    const proxy = authProxyOf(parsed.config.authProxy ?? { header: '', trustedProxies: [], operators: [] });
    expect(isTrustedProxy(proxy.trusted, '10.9.8.7')).toBe(true);
    expect(isTrustedProxy(proxy.trusted, '192.168.0.1')).toBe(false);
    expect(proxy.operators.has('bob')).toBe(true);
  });

  it('without the header, changes nothing: no proxy, the token as before', () => {
    const parsed = result(['--token', 'a-token-of-16-chars!']);
    if (parsed.ok !== true) throw new Error(JSON.stringify(parsed));
    expect(parsed.config.authProxy).toBeNull();
    expect(parsed.config.token).toBe('a-token-of-16-chars!');
  });

  it.each([
    [
      ['--auth-proxy-header', 'X-User', '--trusted-proxy', '10.0.0/8'],
      /^--trusted-proxy "10.0.0\/8" is not an address or a CIDR range/,
    ],
    [['--auth-proxy-header', 'X-User', '--trusted-proxy', '::1/200'], /^--trusted-proxy "::1\/200" is not/],
    [['--auth-proxy-header', 'X-User'], /^--auth-proxy-header needs at least one --trusted-proxy CIDR/],
    [
      ['--auth-proxy-header', 'X User', '--trusted-proxy', '10.0.0.0/8'],
      /^--auth-proxy-header "X User" is not an HTTP header name/,
    ],
    [['--auth-proxy-header', 'X-User:', '--trusted-proxy', '10.0.0.0/8'], /is not an HTTP header name/],
    [
      ['--auth-proxy-header', 'X-User', '--trusted-proxy', '10.0.0.5/32,0.0.0.0/0'],
      /^--trusted-proxy "0.0.0.0\/0" is every address/,
    ],
    [['--auth-proxy-header', 'X-User', '--trusted-proxy', '::/0'], /^--trusted-proxy "::\/0" is every address/],
    [
      ['--auth-proxy-header', 'X-User', '--trusted-proxy', '10.0.0.0/8', '--operators', ' , '],
      /^--operators names no user/,
    ],
    [['--trusted-proxy', '10.0.0.0/8'], /^--trusted-proxy needs --auth-proxy-header/],
    [['--operators', 'alice'], /^--operators names users of --auth-proxy-header/],
    [
      ['--auth-proxy-header', 'X-User', '--trusted-proxy', '10.0.0.0/8', '--token', 'a-token-of-16-chars!'],
      /^--auth-proxy-header replaces --token/,
    ],
  ])('refuses %j in one line', (argv, message) => {
    const parsed = result(argv);
    if (parsed.ok !== false) throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
    expect(parsed.error).toMatch(message);
    expect(parsed.error).not.toContain('\n');
  });

  it('refuses the proxy header beside AIOSCOPE_TOKEN too', () => {
    const parsed = result(['--auth-proxy-header', 'X-User', '--trusted-proxy', '10.0.0.0/8'], {
      AIOSCOPE_TOKEN: 'a-token-of-16-chars!',
    });
    expect(parsed.ok).toBe(false);
  });
});
