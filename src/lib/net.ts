import dns from 'node:dns';
import net from 'node:net';

/**
 * Address checks for URLs Herald calls on a user's behalf (webhooks): a public service must not be
 * turned into a probe of its own network (SSRF). Every address a host resolves to must be public.
 */

// Ranges that are not publicly routable (IANA special-purpose registries, IPv4 and IPv6).
const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID...)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation (RFC 9637)
  ['5f00::', 16], // segment routing SIDs (RFC 9602)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** Expands an IPv6 literal to its 16 bytes (null when it is not one). */
function ipv6Bytes(address: string): number[] | null {
  if (net.isIPv6(address) === false) return null;
  let text = address.split('%')[0];
  const bytes: number[] = [];
  // A dotted IPv4 tail ("::ffff:1.2.3.4") becomes two hex groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const parts = dotted[1].split('.').map(Number);
    text =
      text.slice(0, -dotted[1].length) +
      `${((parts[0] << 8) | parts[1]).toString(16)}:${((parts[2] << 8) | parts[3]).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array(tail === null ? 0 : missing).fill('0'), ...tailGroups];
  if (groups.length !== 8) return null;
  for (const g of groups) {
    const n = parseInt(g || '0', 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes;
}

/**
 * The IPv4 address embedded in an IPv6 one that the network would route as IPv4: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated), NAT64 (64:ff9b::/96), 6to4 (2002::/16).
 */
function embeddedIPv4(address: string): string | null {
  const b = ipv6Bytes(address);
  if (!b) return null;
  const v4 = (o: number) => `${b[o]}.${b[o + 1]}.${b[o + 2]}.${b[o + 3]}`;
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  // IPv4-translated (SIIT, RFC 2765: ::ffff:0:a.b.c.d), which the written form ::ffff:0:0/96 hides.
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return v4(12);
  if (zero(0, 12) && !zero(12, 16)) return v4(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return v4(12);
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  return null;
}

/** True when `address` (an IP literal) is private, loopback, link-local, multicast or otherwise not public. */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = net.isIP(bare.split('%')[0]);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIPv4(bare);
    if (v4 !== null) return blocked.check(v4, 'ipv4');
    return blocked.check(bare.split('%')[0], 'ipv6');
  }
  return true; // not an IP literal: never "public" by itself
}

export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

const lookupAll: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export class UnsafeAddressError extends Error {
  constructor(
    message: string,
    public readonly reason: 'scheme' | 'unresolvable' | 'private' | 'malformed',
  ) {
    super(message);
    this.name = 'UnsafeAddressError';
  }
}

/**
 * Checks a URL before Herald calls it: https only, and every address the host resolves to (all of them,
 * not just the first) must be public. `allowInsecure` (development) skips both checks; `allowHttp` keeps
 * the address check but accepts plain http (media and link pages, which platforms fetch over http too).
 * Returns the resolved addresses so the caller can connect to exactly what was checked.
 */
export async function assertPublicUrl(
  raw: string,
  opts: {
    allowInsecure: boolean;
    allowHttp?: boolean;
    lookup?: LookupAll;
    /** Which addresses are refused (tests); default `isNonPublicAddress`. */
    isBlocked?: (address: string) => boolean;
  },
): Promise<{ url: URL; addresses: { address: string; family: number }[] | null }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeAddressError('is not a valid URL', 'malformed');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UnsafeAddressError('must use https', 'scheme');
  if (opts.allowInsecure) return { url, addresses: null };
  if (url.protocol !== 'https:' && !opts.allowHttp) throw new UnsafeAddressError('must use https', 'scheme');
  const isBlocked = opts.isBlocked ?? isNonPublicAddress;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    if (isBlocked(host))
      throw new UnsafeAddressError('must not point to a private, loopback or link-local address', 'private');
    return { url, addresses: [{ address: host, family: net.isIP(host) }] };
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await (opts.lookup ?? lookupAll)(host);
  } catch {
    throw new UnsafeAddressError(`host "${host}" could not be resolved`, 'unresolvable');
  }
  if (addresses.length === 0) throw new UnsafeAddressError(`host "${host}" could not be resolved`, 'unresolvable');
  if (addresses.some((a) => isBlocked(a.address))) {
    throw new UnsafeAddressError('must not resolve to a private, loopback or link-local address', 'private');
  }
  return { url, addresses };
}
