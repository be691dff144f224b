import { Response as ServerResponse } from '@whatwg-node/fetch';
import { errorBody } from '../errors.js';

/**
 * An answer the HTTP server writes as it is: @whatwg-node/server sends this Response class's text
 * body in one write, where the platform's Response is read back through a web stream (~5% of a small
 * read's server CPU). Either kind may be answered; test with `isResponse`, not `instanceof Response`.
 */
export const plainResponse = (body: string | null, init: { status: number; statusText?: string; headers?: HeadersInit }): Response =>
  new ServerResponse(body, init) as unknown as Response;

/** Whether `value` is an answer (the platform's Response or `plainResponse`'s). */
export const isResponse = (value: unknown): value is Response => value instanceof Response || value instanceof ServerResponse;

/** A JSON answer. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  plainResponse(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

/** The one error answer of every route: `{ "error": { "code": <status>, "message" } }`. */
export const errorResponse = (status: number, message: string, headers: Record<string, string> = {}) =>
  json(status, errorBody(status, message), headers);
