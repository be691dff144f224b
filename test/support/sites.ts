import { expect } from 'vitest';
import type { Harness, TestUser } from './harness.js';
import { type CallOpts, restRefusalChecker } from './refused.js';

/** Helpers shared by the test/sites*.test.ts files. */

export type Owner = TestUser & { orgId: string };
export type { CallOpts };

export function siteHelpers(h: () => Harness) {
  /** Everything the site domain stores, plus the harness snapshot: to prove a refused request changed nothing. */
  async function snapshot() {
    const p = h().db.prisma;
    const byId = { orderBy: { id: 'asc' as const } };
    const rows = await Promise.all([
      p.site.findMany(byId),
      p.siteSection.findMany(byId),
      p.siteSectionGroup.findMany(byId),
      p.siteSpace.findMany(byId),
      p.siteShareLink.findMany(byId),
    ]);
    return JSON.stringify(rows) + (await h().snapshot());
  }

  /** A refused request: the status, the error body, an optional message check, and nothing changed. */
  const expectRefused = restRefusalChecker(h, snapshot);

  /** An organization with a member of each kind (the harness cast). */
  const team = () => h().world();

  async function ok(operationId: string, method: string, path: string, opts: CallOpts, status = 200) {
    const res = await h().rest(operationId, method, path, opts);
    expect(res.status, `${operationId}: ${JSON.stringify(res.body)}`).toBe(status);
    return res.body;
  }

  const space = async (who: Owner, title = 'Space', body: Record<string, unknown> = {}) =>
    (await ok('createSpace', 'POST', `/v1/orgs/${who.orgId}/spaces`, { token: who.token, body: { title, ...body } }, 201)) as {
      id: string;
      title: string;
    };

  const site = async (who: { token: string }, orgId: string, body: Record<string, unknown> = {}) =>
    (await ok('createSite', 'POST', `/v1/orgs/${orgId}/sites`, { token: who.token, body: { title: 'Docs', ...body } }, 201)) as {
      id: string;
      [k: string]: any;
    };

  const sitePath = (orgId: string, siteId: string) => `/v1/orgs/${orgId}/sites/${siteId}`;

  const section = async (who: { token: string }, orgId: string, siteId: string, body: Record<string, unknown>) =>
    ok('addSectionToSite', 'POST', `${sitePath(orgId, siteId)}/sections`, { token: who.token, body }, 201);

  const siteSpace = async (who: { token: string }, orgId: string, siteId: string, body: Record<string, unknown>) =>
    ok('addSpaceToSite', 'POST', `${sitePath(orgId, siteId)}/site-spaces`, { token: who.token, body }, 201);

  const group = async (who: { token: string }, orgId: string, siteId: string, body: Record<string, unknown>) =>
    ok('addSectionGroupToSite', 'POST', `${sitePath(orgId, siteId)}/section-groups`, { token: who.token, body }, 201);

  /** Ids of a site's sections / site spaces in list order. */
  const sectionIds = async (token: string, orgId: string, siteId: string) =>
    ((await ok('listSiteSections', 'GET', `${sitePath(orgId, siteId)}/sections?limit=1000`, { token })).items as { id: string }[]).map(
      (s) => s.id,
    );
  const siteSpaceIds = async (token: string, orgId: string, siteId: string) =>
    ((await ok('listSiteSpaces', 'GET', `${sitePath(orgId, siteId)}/site-spaces?limit=1000`, { token })).items as { id: string }[]).map(
      (s) => s.id,
    );

  return { snapshot, expectRefused, team, ok, space, site, sitePath, section, siteSpace, group, sectionIds, siteSpaceIds };
}
