/** The harness and the checkers shared by the test/orgs/orgs-*.test.ts files (each test builds its own h.world()). */
import { expect } from 'vitest';
import { assertMatchesSpec } from '../support/openapi.js';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';

export let h: Harness;

export async function setupOrgs() {
  h = await setupHarness();
}

export type Owner = TestUser & { orgId: string };

export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Sends a request that must be refused with `status` (a 400 must name `field` first in its
 * message) and must leave every table unchanged.
 */
export async function refused(
  status: number,
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; rawBody?: string; field?: string; operationId?: string } = {},
) {
  const before = await h.snapshot();
  const res = await h.call(method, path, { token: opts.token, body: opts.body, rawBody: opts.rawBody });
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (opts.field !== undefined) expect(res.body.error.message).toMatch(new RegExp(`^${escapeRegExp(opts.field)}(:|\\[| )`));
  if (opts.operationId) assertMatchesSpec(opts.operationId, status, res.body);
  expect(await h.snapshot()).toBe(before);
  return res;
}

export const PERMISSION_KEYS = [
  'view',
  'access',
  'admin',
  'ownTeam',
  'createContent',
  'createOpenAPISpec',
  'ingestConversations',
  'viewBilling',
  'listMembers',
  'listTeams',
  'listIntegrations',
  'listInstallations',
  'installIntegration',
];
