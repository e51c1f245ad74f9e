import { BlockList, isIP } from 'node:net';

/** The addresses --trusted-proxy names: only a request whose TCP peer is one of them may carry the user header. */
export interface TrustedProxies {
  /** node's own CIDR matcher, for IPv4 and IPv6 (an IPv4 rule also matches its ::ffff: mapped form). */
  readonly list: BlockList;
  /** The ranges as given, for messages and logs. */
  readonly ranges: readonly string[];
}

export type ParsedProxies = { ok: true; proxies: TrustedProxies } | { ok: false; error: string };

/** One range, `address/prefix` or a bare address (its own /32 or /128); null when it does not parse. */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const bits = version === 4 ? 32 : 128;
  // A prefix is digits only: Number('') is 0 and Number('0x8') is 8, neither of which was written.
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Every --trusted-proxy value (each may list several, separated by commas) into one matcher. */
export function parseTrustedProxies(values: readonly string[]): ParsedProxies {
  const list = new BlockList();
  const ranges = values.flatMap((value) => value.split(',')).map((range) => range.trim());
  for (const range of ranges) {
    const cidr = parseCidr(range);
    if (cidr === null)
      return {
        ok: false,
        error: `--trusted-proxy "${range}" is not an address or a CIDR range (e.g. 10.0.0.0/8, 127.0.0.1/32, ::1/128)`,
      };
    // A /0 holds every address: the header would then be believed from anyone, which is no proxy at all.
    if (cidr.prefix === 0)
      return {
        ok: false,
        error: `--trusted-proxy "${range}" is every address: name the proxy's own (e.g. 10.0.0.5/32) or its subnet`,
      };
    list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return { ok: true, proxies: { list, ranges } };
}

/** Whether a TCP peer (as `socket.remoteAddress` gives it) is a trusted proxy. */
export function isTrustedProxy(proxies: TrustedProxies, peer: string | undefined): boolean {
  const version = peer === undefined ? 0 : isIP(peer);
  if (peer === undefined || version === 0) return false;
  return proxies.list.check(peer, version === 4 ? 'ipv4' : 'ipv6');
}
