import { expect } from 'vitest';

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
