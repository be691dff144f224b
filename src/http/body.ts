import { Request as ServerRequest } from '@whatwg-node/fetch';
import { requestIdOf, tagRequest } from '../ops/log.js';
import { errorResponse } from './respond.js';

/**
 * The one way the app reads a request body: streamed, counted chunk by chunk, and cut off with a 413
 * as soon as it passes the limit. Nothing is buffered beyond `limit` bytes, whether or not the
 * client declared a Content-Length (else a chunked body of 600 MB would be read whole before any check).
 */
export class BodyTooLarge extends Error {
  readonly status = 413;
  constructor(readonly limit: number) {
    super(`body: larger than ${limit} bytes`);
  }
}

/** A refusal while reading the body: 413 (too large) or 400 (the client broke off or sent garbage). */
export class BodyUnreadable extends Error {
  readonly status = 400;
  constructor() {
    super('body: could not be read (the request was cut off)');
  }
}

/** Whether the declared Content-Length alone already exceeds `limit` (refused without reading a byte). */
export function declaredTooLarge(request: Request, limit: number): boolean {
  const declared = Number(request.headers.get('content-length') ?? 0);
  return Number.isFinite(declared) && declared > limit;
}

/** The whole body as bytes, at most `limit` of them; throws BodyTooLarge past that. */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  if (declaredTooLarge(request, limit)) throw new BodyTooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    let step: ReadableStreamReadResult<Uint8Array>;
    try {
      step = await reader.read();
    } catch {
      throw new BodyUnreadable();
    }
    if (step.done) break;
    total += step.value.byteLength;
    if (total > limit) {
      // Stop reading: the rest is never pulled into memory (the server discards or drops it).
      reader.cancel().catch(() => {});
      throw new BodyTooLarge(limit);
    }
    chunks.push(step.value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The body as UTF-8 text, bounded like readBody. */
export async function readText(request: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBody(request, limit));
}

/**
 * The same request with its body replaced by bytes already read (downstream readers get them from
 * memory). Made with @whatwg-node/fetch's Request, as the HTTP server's are: the platform's cost
 * ~4% of a small GraphQL read to construct.
 */
export function withBody(request: Request, bytes: Uint8Array): Request {
  const headers = new Headers(request.headers);
  headers.set('content-length', String(bytes.byteLength));
  headers.delete('transfer-encoding');
  const read = new ServerRequest(request.url, {
    method: request.method,
    headers,
    body: bytes.byteLength ? (bytes as Uint8Array<ArrayBuffer>) : undefined,
    signal: request.signal,
  }) as unknown as Request;
  const id = requestIdOf(request);
  if (id) tagRequest(read, id);
  return read;
}

/** The error answer for a body refusal, or null for any other error. */
export function bodyRefusal(error: unknown): Response | null {
  if (!(error instanceof BodyTooLarge) && !(error instanceof BodyUnreadable)) return null;
  // `connection: close`: the server stops receiving the rest of a refused body instead of reading
  // it to the end to keep the connection alive.
  return errorResponse(error.status, error.message, { connection: 'close' });
}
