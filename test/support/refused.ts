import { expect } from 'vitest';
import { documentedStatuses } from './openapi.js';

export type Res = { status: number; body: any };

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The check behind the three checkers below: `send` answers `status` with exactly
 * `{ error: { code, message } }`, the message matching `message` when given (and naming `field`
 * first when given), and `state()` — a serialisation of everything the test cares about — is
 * exactly as it was.
 */
async function expectRefusal(
  state: () => Promise<string>,
  send: () => Promise<Res>,
  expected: { status: number; message?: string | RegExp; field?: string },
): Promise<Res> {
  const before = await state();
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
  expect(res.body).toEqual({ error: { code: expected.status, message: expect.any(String) } });
  if (expected.message !== undefined) expect(res.body.error.message).toMatch(expected.message);
  if (expected.field !== undefined) expect(res.body.error.message).toMatch(new RegExp(`^${escapeRegExp(expected.field)}(:|\\[| |\\.)`));
  expect(await state()).toBe(before);
  return res;
}

/** `refused(status, request, message?)`: `request` is refused (see `expectRefusal`). */
export function refusalChecker(state: () => Promise<string>) {
  return (status: number, request: () => Promise<Res>, message?: string | RegExp): Promise<Res> =>
    expectRefusal(state, request, { status, message });
}

type Caller = {
  call(method: string, path: string, opts?: { token?: string | null; body?: unknown }): Promise<Res>;
  rest(operationId: string, method: string, path: string, opts?: { token?: string | null; body?: unknown }): Promise<Res>;
};

/**
 * `refused(status, method, path, { token, body, field, operationId })`: the request is refused (see
 * `expectRefusal`), a 400's message naming `field` first. With `operationId` the error body is also
 * checked against the official schema.
 */
export function requestRefusalChecker(h: Caller, state: () => Promise<string>) {
  return (
    status: number,
    method: string,
    path: string,
    opts: { token?: string | null; body?: unknown; field?: string; operationId?: string } = {},
  ): Promise<Res> =>
    expectRefusal(
      state,
      () =>
        opts.operationId ? h.rest(opts.operationId, method, path, opts) : h.call(method, path, { token: opts.token, body: opts.body }),
      { status, field: opts.field },
    );
}

export type CallOpts = { token?: string | null; body?: unknown; rawBody?: string };

type RestCaller = {
  call(method: string, path: string, opts?: CallOpts): Promise<Res>;
  rest(operationId: string, method: string, path: string, opts?: CallOpts): Promise<Res>;
};

/**
 * `expectRefused(operationId, method, path, opts, status, message?)`: the request is refused (see
 * `expectRefusal`), its error body checked against the official schema when the operation
 * documents that status and the body is JSON. `h` is a function so a suite can pass a harness made
 * in `beforeAll`.
 */
export function restRefusalChecker(h: () => RestCaller, state: () => Promise<string>) {
  return (operationId: string, method: string, path: string, opts: CallOpts, status: number, message?: RegExp): Promise<Res> => {
    const documented = opts.rawBody === undefined && documentedStatuses(operationId).includes(String(status));
    return expectRefusal(state, () => (documented ? h().rest(operationId, method, path, opts) : h().call(method, path, opts)), {
      status,
      message,
    });
  };
}
