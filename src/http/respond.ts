import { errorBody } from '../errors.js';

/** A JSON answer. */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });

/** The one error answer of every route: `{ "error": { "code": <status>, "message" } }`. */
export const errorResponse = (status: number, message: string, headers: Record<string, string> = {}) =>
  json(status, errorBody(status, message), headers);
