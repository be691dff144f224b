import { expect } from 'vitest';
import { documentedStatuses } from './openapi.js';

export type Res = { status: number; body: any };

/**
 * `refused(status, request, message?)`: the request is refused with `status` in the
 * `{ error: { code, message } }` shape (its message matching `message` when given), and `state()`
 * — a serialisation of everything the test cares about — is exactly as it was.
 */
export function refusalChecker(state: () => Promise<string>) {
  return async function refused(status: number, request: () => Promise<Res>, message?: string | RegExp): Promise<Res> {
    const before = await state();
    const res = await request();
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(status);
    expect(res.body.error.message).toEqual(expect.any(String));
    if (message !== undefined) expect(res.body.error.message).toMatch(message);
    expect(await state()).toBe(before);
    return res;
  };
}

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Caller = {
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown }): Promise<Res>;
  rest(operationId: string, method: string, path: string, opts?: { token?: string | null; body?: unknown }): Promise<Res>;
};

/**
 * `refused(status, method, path, { token, body, field, operationId })`: the request answers `status`
 * with exactly `{ error: { code, message } }`, a 400's message names `field` first, and `state()` is
 * unchanged. With `operationId` the error body is also checked against the official schema.
 */
export function requestRefusalChecker(h: Caller, state: () => Promise<string>) {
  return async function refused(
    status: number,
    method: string,
    path: string,
    opts: { token?: string | null; body?: unknown; field?: string; operationId?: string } = {},
  ): Promise<Res> {
    const before = await state();
    const res = opts.operationId
      ? await h.rest(opts.operationId, method, path, opts)
      : await h.call(method, path, { token: opts.token, body: opts.body });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
    if (opts.field !== undefined) expect(res.body.error.message).toMatch(new RegExp(`^${escapeRegExp(opts.field)}(:|\\[| |\\.)`));
    expect(await state()).toBe(before);
    return res;
  };
}

export type CallOpts = { token?: string | null; body?: unknown; rawBody?: string };

type RestCaller = {
  call(method: string, path: string, opts?: CallOpts): Promise<Res>;
  rest(operationId: string, method: string, path: string, opts?: CallOpts): Promise<Res>;
};

/**
 * `expectRefused(operationId, method, path, opts, status, message?)`: the request answers `status`
 * with exactly `{ error: { code, message } }` (checked against the official schema when the
 * operation documents that status and the body is JSON), its message matching `message` when given,
 * and `state()` unchanged. `h` is a function so a suite can pass a harness made in `beforeAll`.
 */
export function restRefusalChecker(h: () => RestCaller, state: () => Promise<string>) {
  return async function expectRefused(operationId: string, method: string, path: string, opts: CallOpts, status: number, message?: RegExp) {
    const before = await state();
    const documented = opts.rawBody === undefined && documentedStatuses(operationId).includes(String(status));
    const res = documented ? await h().rest(operationId, method, path, opts) : await h().call(method, path, opts);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
    if (message) expect(res.body.error.message).toMatch(message);
    expect(await state()).toBe(before);
    return res;
  };
}
