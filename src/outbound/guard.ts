import dns from 'node:dns';
import net from 'node:net';
import { type Settings, settings } from '../config.js';

/**
 * The one outbound guard: which addresses a connection made on a user's behalf (an OpenAPI URL, a
 * file by URL, a Git remote, an OpenID provider) may reach. Private-network destinations (loopback,
 * RFC 1918, link-local, CGNAT, unique-local IPv6, multicast, …) are refused unless the operator
 * allows them (LECTERN_ALLOW_PRIVATE_NETWORK): otherwise a user could make the server reach its
 * own network, cloud metadata services included. Names are resolved once and every address they
 * resolve to is checked; callers connect to a checked address, so a DNS answer cannot change
 * between the check and the connection.
 */

/** What the operator's setting says, in words a refusal can end with. */
export const PRIVATE_HINT =
  'Lectern reaches only public addresses on behalf of users unless its operator allows private ones (LECTERN_ALLOW_PRIVATE_NETWORK=1)';

/** Whether private addresses may be reached (the one switch of src/config.ts). */
export const allowPrivateNetwork = (config: Pick<Settings, 'allowPrivateNetwork'> = settings()) => config.allowPrivateNetwork;

const PRIVATE = new net.BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  PRIVATE.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): the IPv4 it carries may sit anywhere
] as const) {
  PRIVATE.addSubnet(address, prefix, 'ipv6');
}

/** The eight 16-bit groups of a valid IPv6 address (any textual form, a trailing dotted quad included). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const quad = text.match(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return tail === undefined ? left : [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

const quadOf = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/**
 * The IPv4 addresses an IPv6 address carries, by the transition forms that reach them:
 * IPv4-compatible (::a.b.c.d), IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d),
 * NAT64 (64:ff9b::/96), 6to4 (2002:AABB:CCDD::/48) and Teredo (2001:0::/32: its server, and its
 * client, stored inverted in the last 32 bits).
 */
function embeddedIPv4(g: number[]): string[] {
  const last = quadOf(g[6]!, g[7]!);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g[5] === 0 || g[5] === 0xffff)) return [last];
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return [last];
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [last];
  if (g[0] === 0x2002) return [quadOf(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [quadOf(g[2]!, g[3]!), quadOf(g[6]! ^ 0xffff, g[7]! ^ 0xffff)];
  return [];
}

/**
 * Whether an IP address is one a user-given URL must not reach. An IPv6 address that carries an
 * IPv4 address (see `embeddedIPv4`) is private when that IPv4 address is: otherwise
 * `[::127.0.0.1]` or `[2002:7f00:1::]` would reach loopback through a transition mechanism.
 */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family !== 6) return true;
  if (PRIVATE.check(address.replace(/%.*$/, ''), 'ipv6')) return true;
  return embeddedIPv4(ipv6Groups(address)).some((v4) => PRIVATE.check(v4, 'ipv4'));
}

/** A URL's host without the brackets of an IPv6 literal. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** A host refused without resolving it: a private IP literal or a `localhost` name. */
export function isPrivateHost(host: string): boolean {
  const name = host.toLowerCase();
  return (net.isIP(name) > 0 && isPrivateAddress(name)) || name === 'localhost' || name.endsWith('.localhost');
}

/**
 * What can be said about a user-given URL without resolving it: refused when it is not http(s),
 * or when its host is private (see isPrivateHost) and private addresses are not allowed.
 * Returns the problem, or null, so a request can be refused up front (400).
 */
export function urlProblem(value: string, allowPrivate = allowPrivateNetwork()): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (!allowPrivate && isPrivateHost(hostOf(url))) return `points to a private network address (${hostOf(url)}); ${PRIVATE_HINT}`;
  return null;
}

/** A destination the guard refuses; `code` EPRIVATE, or ENOTFOUND when the name does not resolve. */
export class OutboundRefused extends Error {
  constructor(
    message: string,
    readonly code: 'EPRIVATE' | 'ENOTFOUND',
  ) {
    super(message);
    this.name = 'OutboundRefused';
  }
}

/** Refuses `addresses` of `host` when one is private and private addresses are not allowed. */
function checkAddresses(host: string, addresses: string[], allowPrivate: boolean): void {
  if (allowPrivate) return;
  const blocked = addresses.find((a) => isPrivateAddress(a));
  if (blocked) {
    const what = net.isIP(host) ? `${host} is a private network address` : `${host} resolves to a private network address (${blocked})`;
    throw new OutboundRefused(what, 'EPRIVATE');
  }
}

/**
 * The checked addresses of a host (an IP literal or a name, resolved once), for callers that
 * connect through another program (git, ssh) and pin it to one of them.
 */
export async function checkedAddresses(host: string, allowPrivate = allowPrivateNetwork()): Promise<string[]> {
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new OutboundRefused(`the host ${host} could not be found (DNS)`, 'ENOTFOUND');
    }
    if (!addresses.length) throw new OutboundRefused(`${host} has no address`, 'ENOTFOUND');
  }
  checkAddresses(host, addresses, allowPrivate);
  return addresses;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that only ever hands out checked addresses. */
export function checkedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as dns.LookupAddress[];
      if (!list.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      try {
        checkAddresses(
          hostname,
          list.map((a) => a.address),
          allowPrivate,
        );
      } catch (refusal) {
        return callback(refusal as OutboundRefused, []);
      }
      const wanted = options.family === 4 || options.family === 6 ? list.filter((a) => a.family === options.family) : list;
      const usable = wanted.length ? wanted : list;
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}
