import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { settings, type Settings } from '../../config.js';

/**
 * Fetching OpenAPI files (a spec's `source.url` and the external `$ref`s it names) on behalf of
 * users, with the restrictions a server that fetches user-given URLs needs:
 * - http and https only; at most `MAX_REDIRECTS` redirects, each hop checked again;
 * - no private-network destination (loopback, RFC 1918, link-local, CGNAT, unique-local IPv6,
 *   multicast, …): the host name is resolved once, every address it resolves to is checked, and
 *   the connection goes to a checked address (so a DNS answer cannot change between check and
 *   connect). An operator can allow private addresses with `LECTERN_OPENAPI_ALLOW_PRIVATE=1`
 *   (e.g. specs served on an intranet);
 * - a time limit per file (`LECTERN_OPENAPI_FETCH_TIMEOUT_MS`, default 15 s) and one for the whole
 *   processing of a version (`LECTERN_OPENAPI_TOTAL_TIMEOUT_MS`, default 2 min, below the job
 *   queue's stale-job delay);
 * - a size limit per file after decompression (`LECTERN_OPENAPI_MAX_BYTES`, default 10 MiB) and a
 *   limit on the number of files one spec may pull in (`LECTERN_OPENAPI_MAX_FILES`, default 50);
 * - a limit on what the spec's files take once parsed, YAML aliases expanded
 *   (`LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES`, default 32 MiB: the stored filesystem);
 * - processing runs in a worker thread (src/jobs/isolate.ts) with a heap of
 *   `LECTERN_OPENAPI_MEMORY_MB` (default 512) and a wall clock of the total fetch time plus
 *   `LECTERN_OPENAPI_PROCESS_TIMEOUT_MS` (default 60 s) for parsing and validating.
 * The settings are read from the environment on every call (not once at start-up), so an operator's
 * change applies to the next job and tests can set them for themselves.
 */
export interface OpenAPIFetchSettings {
  allowPrivate: boolean;
  timeoutMs: number;
  totalTimeoutMs: number;
  maxBytes: number;
  maxFiles: number;
  maxFilesystemBytes: number;
  memoryMb: number;
  processTimeoutMs: number;
}

/** The OpenAPI fetch settings of the config (src/config.ts), with the one private-network switch Git uses too. */
export function openAPIFetchSettings(config: Settings = settings()): OpenAPIFetchSettings {
  return { allowPrivate: config.allowPrivateNetwork, ...config.openapi };
}

export const MAX_REDIRECTS = 5;

/** A fetch that did not give a usable file: `code` is the spec's `lastProcessErrorCode`. */
export class FetchFailure extends Error {
  constructor(
    readonly code: 'FETCH_TIMEOUT' | 'FETCH_ERROR',
    message: string,
  ) {
    super(message);
  }
}

// Addresses no user-given URL may reach unless the operator allows private networks.
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

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * What can be said about a URL without resolving it: refused when it is not http(s), or when its
 * host is an IP literal or a `localhost` name in a private network (and those are not allowed).
 * Returns the problem, or null. Used to refuse such a `source.url` up front (400).
 */
export function urlProblem(value: string, settings = openAPIFetchSettings()): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (settings.allowPrivate) return null;
  const host = hostOf(url).toLowerCase();
  if ((net.isIP(host) && isPrivateAddress(host)) || host === 'localhost' || host.endsWith('.localhost')) {
    return `points to a private network address (${host}); Lectern fetches specs only from public addresses unless its operator allows private ones (LECTERN_OPENAPI_ALLOW_PRIVATE=1)`;
  }
  return null;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http.request that only ever hands out checked addresses. */
function checkedLookup(allowPrivate: boolean) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as dns.LookupAddress[];
      if (!list.length) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (!allowPrivate) {
        const blocked = list.find((a) => isPrivateAddress(a.address));
        if (blocked)
          return callback(
            Object.assign(new Error(`${hostname} resolves to a private network address (${blocked.address})`), { code: 'EPRIVATE' }),
            [],
          );
      }
      const wanted = options.family === 4 || options.family === 6 ? list.filter((a) => a.family === options.family) : list;
      const usable = wanted.length ? wanted : list;
      if (options.all) callback(null, usable);
      else callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

export interface FetchedFile {
  /** The URL the file was finally read from (after redirects): relative `$ref`s resolve against it. */
  url: string;
  text: string;
  contentType: string | null;
}

function describeNetworkError(error: NodeJS.ErrnoException, url: URL): string {
  switch (error.code) {
    case 'EPRIVATE':
      return `${error.message}; Lectern fetches specs only from public addresses unless its operator allows private ones (LECTERN_OPENAPI_ALLOW_PRIVATE=1)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host ${url.hostname} could not be found (DNS): check the URL`;
    case 'ECONNREFUSED':
      return `${url.host} refused the connection: check the URL and that the server is up`;
    case 'ECONNRESET':
      return `${url.host} closed the connection before answering`;
    default:
      if (error.code?.startsWith('ERR_TLS') || /certificate|SSL|TLS/i.test(error.message)) {
        return `the TLS connection to ${url.host} failed (${error.message}): the server needs a valid certificate`;
      }
      return `the request to ${url.host} failed: ${error.message}`;
  }
}

/** GETs one URL with the restrictions above, following redirects; text is decoded as UTF-8. */
export async function fetchFile(rawUrl: string, opts: { settings?: OpenAPIFetchSettings; deadline?: number } = {}): Promise<FetchedFile> {
  const settings = opts.settings ?? openAPIFetchSettings();
  const deadline = Math.min(opts.deadline ?? Infinity, Date.now() + settings.timeoutMs);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchFailure('FETCH_ERROR', `${rawUrl} is not a valid URL`);
  }
  for (let hop = 0; ; hop++) {
    // Names (`localhost` included) are checked on the addresses they resolve to, in `checkedLookup`.
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new FetchFailure('FETCH_ERROR', `${url.href}: only http and https URLs can be fetched`);
    const answer = await requestOnce(url, settings, deadline);
    if ('redirect' in answer) {
      if (hop >= MAX_REDIRECTS) throw new FetchFailure('FETCH_ERROR', `${rawUrl} redirects more than ${MAX_REDIRECTS} times`);
      url = new URL(answer.redirect, url);
      continue;
    }
    let text = answer.bytes.toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { url: url.href, text, contentType: answer.contentType };
  }
}

/**
 * GETs one user-given URL's bytes through the same guard (e.g. a file uploaded by URL to a change
 * request): public addresses only unless the operator allows private ones, redirects checked,
 * at most `maxBytes`, the per-file time limit.
 */
export async function fetchBytes(
  rawUrl: string,
  maxBytes: number,
  deadline = Infinity,
): Promise<{ bytes: Buffer; contentType: string | null }> {
  const base = openAPIFetchSettings();
  const settings = { ...base, maxBytes: Math.min(maxBytes, base.maxBytes) };
  const problem = urlProblem(rawUrl, settings);
  if (problem) throw new FetchFailure('FETCH_ERROR', `${rawUrl} ${problem}`);
  const until = Math.min(deadline, Date.now() + settings.timeoutMs);
  let url = new URL(rawUrl);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new FetchFailure('FETCH_ERROR', `${url.href}: only http and https URLs can be fetched`);
    const answer = await requestOnce(url, settings, until);
    if (!('redirect' in answer)) return answer;
    if (hop >= MAX_REDIRECTS) throw new FetchFailure('FETCH_ERROR', `${rawUrl} redirects more than ${MAX_REDIRECTS} times`);
    url = new URL(answer.redirect, url);
  }
}

function requestOnce(
  url: URL,
  settings: OpenAPIFetchSettings,
  deadline: number,
): Promise<{ redirect: string } | { bytes: Buffer; contentType: string | null }> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    const seconds = (ms: number) => `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 3 })} s`;
    const timeoutMessage = `${url.href} did not answer in time (Lectern waits ${seconds(settings.timeoutMs)} per file and ${seconds(settings.totalTimeoutMs)} per spec version): check that the server answers quickly, or serve the file from a faster host`;
    if (remaining <= 0) return reject(new FetchFailure('FETCH_TIMEOUT', timeoutMessage));
    const host = hostOf(url);
    // An IP literal is connected to directly (no lookup): check it here.
    if (net.isIP(host) && !settings.allowPrivate && isPrivateAddress(host)) {
      return reject(
        new FetchFailure(
          'FETCH_ERROR',
          `${url.href} points to a private network address (${host}); Lectern fetches specs only from public addresses unless its operator allows private ones (LECTERN_OPENAPI_ALLOW_PRIVATE=1)`,
        ),
      );
    }
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      reject(error);
    };
    const request = client.request(
      url,
      {
        method: 'GET',
        lookup: checkedLookup(settings.allowPrivate) as never,
        headers: {
          accept: 'application/json, application/yaml, text/yaml, application/x-yaml, text/plain;q=0.9, */*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
          'user-agent': 'Lectern-OpenAPI-Fetcher',
        },
        // No agent reuse: every fetch connects to an address checked for this request.
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && status !== 304) {
          response.resume();
          const location = response.headers.location;
          if (!location)
            return fail(new FetchFailure('FETCH_ERROR', `${url.href} answered a redirect (HTTP ${status}) without a Location`));
          settled = true;
          clearTimeout(timer);
          request.destroy();
          return resolve({ redirect: location });
        }
        if (status < 200 || status >= 300) {
          response.resume();
          return fail(
            new FetchFailure(
              'FETCH_ERROR',
              `${url.href} answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}: check the URL and that the file is publicly readable`,
            ),
          );
        }
        const declared = Number(response.headers['content-length']);
        const encoding = (response.headers['content-encoding'] ?? 'identity').toLowerCase();
        const tooBig = () =>
          new FetchFailure('FETCH_ERROR', `${url.href} is larger than ${settings.maxBytes} bytes, the most Lectern reads for one file`);
        if (encoding === 'identity' && Number.isFinite(declared) && declared > settings.maxBytes) return fail(tooBig());
        let body: Readable = response;
        if (encoding === 'gzip' || encoding === 'x-gzip') body = response.pipe(zlib.createGunzip());
        else if (encoding === 'deflate') body = response.pipe(zlib.createInflate());
        else if (encoding === 'br') body = response.pipe(zlib.createBrotliDecompress());
        else if (encoding !== 'identity')
          return fail(new FetchFailure('FETCH_ERROR', `${url.href} answered with an unsupported content encoding (${encoding})`));
        const chunks: Buffer[] = [];
        let size = 0;
        body.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > settings.maxBytes) {
            body.destroy();
            fail(tooBig());
          } else chunks.push(chunk);
        });
        body.on('error', (error: Error) =>
          fail(new FetchFailure('FETCH_ERROR', `${url.href}: the answer could not be read (${error.message})`)),
        );
        body.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ bytes: Buffer.concat(chunks), contentType: response.headers['content-type'] ?? null });
        });
      },
    );
    const timer = setTimeout(() => fail(new FetchFailure('FETCH_TIMEOUT', timeoutMessage)), remaining);
    request.on('error', (error: NodeJS.ErrnoException) =>
      fail(new FetchFailure('FETCH_ERROR', `${url.href}: ${describeNetworkError(error, url)}`)),
    );
    request.end();
  });
}

/**
 * One HTTP exchange through the same guard, for protocol clients that need more than GET (an
 * OpenID Connect client's discovery, token and userinfo requests): any method, headers and body;
 * private addresses refused unless LECTERN_ALLOW_PRIVATE_NETWORK; the per-file time and size
 * limits. Redirects are not followed: the answer (3xx included) is handed back as a fetch
 * Response, for the client to judge.
 */
export async function guardedFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const settings = openAPIFetchSettings();
  const request = input instanceof Request ? input : new Request(input, init);
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchFailure('FETCH_ERROR', `${url.href}: only http and https URLs can be fetched`);
  const host = hostOf(url);
  if (net.isIP(host) && !settings.allowPrivate && isPrivateAddress(host)) {
    throw new FetchFailure(
      'FETCH_ERROR',
      `${url.origin} is a private network address; Lectern reaches it only when its operator allows private ones (LECTERN_ALLOW_PRIVATE_NETWORK=1)`,
    );
  }
  const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const headers: Record<string, string> = { 'user-agent': 'Lectern', 'accept-encoding': 'identity' };
  request.headers.forEach((value, name) => (headers[name] = value));
  if (body) headers['content-length'] = String(body.length);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outgoing.destroy();
      reject(error);
    };
    const outgoing = client.request(
      url,
      { method: request.method, headers, lookup: checkedLookup(settings.allowPrivate) as never, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > settings.maxBytes)
            fail(new FetchFailure('FETCH_ERROR', `${url.origin} answered more than ${settings.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('error', (error) =>
          fail(new FetchFailure('FETCH_ERROR', `${url.origin}: the answer could not be read (${error.message})`)),
        );
        response.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, v);
          }
          const status = response.statusCode ?? 502;
          const bytes = Buffer.concat(chunks);
          resolve(new Response([101, 204, 205, 304].includes(status) ? null : bytes, { status, headers: answerHeaders }));
        });
      },
    );
    const timer = setTimeout(
      () => fail(new FetchFailure('FETCH_TIMEOUT', `${url.origin} did not answer within ${settings.timeoutMs} ms`)),
      settings.timeoutMs,
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      fail(new FetchFailure('FETCH_ERROR', `${url.origin}: ${describeNetworkError(error, url)}`)),
    );
    outgoing.end(body);
  });
}
