import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { type Settings, settings } from '../config.js';
import { checkedLookup, hostOf, isPrivateAddress, PRIVATE_HINT } from './guard.js';

/**
 * HTTP on a user's behalf, through the guard (./guard.ts): http and https only; at most
 * MAX_REDIRECTS redirects, each hop checked again; every connection made to an address checked for
 * that request (no agent reuse); a time limit per request (LECTERN_OPENAPI_FETCH_TIMEOUT_MS) and a
 * size limit on the answer after decompression (LECTERN_OPENAPI_MAX_BYTES, or less as the caller
 * asks).
 */

export const MAX_REDIRECTS = 5;

export interface OutboundPolicy {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
}

/** The policy of the config: the one private-network switch, the per-request time and size limits. */
export function outboundPolicy(config: Pick<Settings, 'allowPrivateNetwork' | 'openapi'> = settings()): OutboundPolicy {
  return { allowPrivate: config.allowPrivateNetwork, timeoutMs: config.openapi.timeoutMs, maxBytes: config.openapi.maxBytes };
}

/** A fetch that did not give a usable answer: FETCH_TIMEOUT when out of time, else FETCH_ERROR. */
export class FetchFailure extends Error {
  constructor(
    readonly code: 'FETCH_TIMEOUT' | 'FETCH_ERROR',
    message: string,
  ) {
    super(message);
  }
}

function describeNetworkError(error: NodeJS.ErrnoException, url: URL): string {
  switch (error.code) {
    case 'EPRIVATE':
      return `${error.message}; ${PRIVATE_HINT}`;
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

/** Refuses a URL that is not http(s), or whose host is a private IP literal (connected to without a lookup). */
function checkUrl(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchFailure('FETCH_ERROR', `${url.href}: only http and https URLs can be fetched`);
  const host = hostOf(url);
  if (net.isIP(host) && !allowPrivate && isPrivateAddress(host))
    throw new FetchFailure('FETCH_ERROR', `${url.href} points to a private network address (${host}); ${PRIVATE_HINT}`);
}

const seconds = (ms: number) => `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 3 })} s`;

export interface GetOptions {
  policy?: OutboundPolicy;
  /** An overall deadline (epoch ms) besides the per-request time limit. */
  deadline?: number;
  /** The Accept header. */
  accept?: string;
  userAgent?: string;
  /** Said after "Lectern waits N s per file" in a timeout's message (e.g. the budget of a whole spec). */
  timeoutNote?: string;
}

export interface Got {
  /** The URL finally read (after redirects): relative references resolve against it. */
  url: string;
  bytes: Buffer;
  contentType: string | null;
}

/** GETs one user-given URL through the guard, following redirects (each hop checked again). */
export async function getFollowingRedirects(rawUrl: string, opts: GetOptions = {}): Promise<Got> {
  const policy = opts.policy ?? outboundPolicy();
  const deadline = Math.min(opts.deadline ?? Infinity, Date.now() + policy.timeoutMs);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new FetchFailure('FETCH_ERROR', `${rawUrl} is not a valid URL`);
  }
  for (let hop = 0; ; hop++) {
    // Names (`localhost` included) are checked on the addresses they resolve to, in checkedLookup.
    checkUrl(url, policy.allowPrivate);
    const answer = await getOnce(url, policy, deadline, opts);
    if (!('redirect' in answer)) return { url: url.href, ...answer };
    if (hop >= MAX_REDIRECTS) throw new FetchFailure('FETCH_ERROR', `${rawUrl} redirects more than ${MAX_REDIRECTS} times`);
    url = new URL(answer.redirect, url);
  }
}

/**
 * GETs one user-given URL's bytes (e.g. a file given by URL to a change request): at most
 * `maxBytes` (and the configured limit), the per-request time limit, within `deadline`.
 */
export async function fetchBytes(
  rawUrl: string,
  maxBytes: number,
  deadline = Infinity,
): Promise<{ bytes: Buffer; contentType: string | null }> {
  const base = outboundPolicy();
  const { bytes, contentType } = await getFollowingRedirects(rawUrl, {
    policy: { ...base, maxBytes: Math.min(maxBytes, base.maxBytes) },
    deadline,
  });
  return { bytes, contentType };
}

/** The body of an answer, decompressed, cut off past `maxBytes`. */
function decoded(response: http.IncomingMessage, url: URL, maxBytes: number): Readable | FetchFailure {
  const declared = Number(response.headers['content-length']);
  const encoding = (response.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding === 'identity' && Number.isFinite(declared) && declared > maxBytes) return tooBig(url, maxBytes);
  if (encoding === 'identity') return response;
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress());
  return new FetchFailure('FETCH_ERROR', `${url.href} answered with an unsupported content encoding (${encoding})`);
}

const tooBig = (url: URL, maxBytes: number) =>
  new FetchFailure('FETCH_ERROR', `${url.href} is larger than ${maxBytes} bytes, the most Lectern reads for one file`);

function getOnce(
  url: URL,
  policy: OutboundPolicy,
  deadline: number,
  opts: GetOptions,
): Promise<{ redirect: string } | { bytes: Buffer; contentType: string | null }> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    const note = opts.timeoutNote ? ` ${opts.timeoutNote}` : '';
    const timeoutMessage = `${url.href} did not answer in time (Lectern waits ${seconds(policy.timeoutMs)} per file${note}): check that the server answers quickly, or serve the file from a faster host`;
    if (remaining <= 0) return reject(new FetchFailure('FETCH_TIMEOUT', timeoutMessage));
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      clearTimeout(timer);
      return true;
    };
    const fail = (error: Error) => {
      if (!settle()) return;
      request.destroy();
      reject(error);
    };
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      {
        method: 'GET',
        lookup: checkedLookup(policy.allowPrivate) as never,
        headers: {
          accept: opts.accept ?? '*/*',
          'accept-encoding': 'gzip, deflate, br',
          'user-agent': opts.userAgent ?? 'Lectern',
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
          if (settle()) request.destroy();
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
        const body = decoded(response, url, policy.maxBytes);
        if (body instanceof FetchFailure) return fail(body);
        const chunks: Buffer[] = [];
        let size = 0;
        body.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > policy.maxBytes) {
            body.destroy();
            fail(tooBig(url, policy.maxBytes));
          } else chunks.push(chunk);
        });
        body.on('error', (error: Error) =>
          fail(new FetchFailure('FETCH_ERROR', `${url.href}: the answer could not be read (${error.message})`)),
        );
        body.on('end', () => {
          if (settle()) resolve({ bytes: Buffer.concat(chunks), contentType: response.headers['content-type'] ?? null });
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

/** The headers of a node answer as fetch Headers. */
function answerHeaders(response: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return headers;
}

/**
 * One HTTP exchange through the guard, for protocol clients that need more than GET (an OpenID
 * Connect client's discovery, token and userinfo requests): any method, headers and body; the
 * per-request time and size limits. Redirects are not followed: the answer (3xx included) is
 * handed back as a fetch Response, for the client to judge.
 */
export async function guardedFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const policy = outboundPolicy();
  const request = input instanceof Request ? input : new Request(input, init);
  const url = new URL(request.url);
  checkUrl(url, policy.allowPrivate);
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
      { method: request.method, headers, lookup: checkedLookup(policy.allowPrivate) as never, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > policy.maxBytes) fail(new FetchFailure('FETCH_ERROR', `${url.origin} answered more than ${policy.maxBytes} bytes`));
          else chunks.push(chunk);
        });
        response.on('error', (error) =>
          fail(new FetchFailure('FETCH_ERROR', `${url.origin}: the answer could not be read (${error.message})`)),
        );
        response.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const status = response.statusCode ?? 502;
          const bytes = Buffer.concat(chunks);
          resolve(new Response([101, 204, 205, 304].includes(status) ? null : bytes, { status, headers: answerHeaders(response) }));
        });
      },
    );
    const timer = setTimeout(
      () => fail(new FetchFailure('FETCH_TIMEOUT', `${url.origin} did not answer within ${policy.timeoutMs} ms`)),
      policy.timeoutMs,
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      fail(new FetchFailure('FETCH_ERROR', `${url.origin}: ${describeNetworkError(error, url)}`)),
    );
    outgoing.end(body);
  });
}
