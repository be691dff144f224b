import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { siteHelpers } from '../support/sites.js';
import { statementsOnBothLanes } from '../support/graphql-lanes.js';

/**
 * N+1 guard for the front-end query over docs sites: an organization's sites → sections and
 * section groups → site spaces → spaces → each space's page tree, in one GraphQL request. The SQL
 * statement count must not grow with the number of sections and site spaces.
 */
let h: Harness;
const s = siteHelpers(() => h);
beforeAll(async () => {
  h = await setupHarness();
});

const SITE_TREE = /* GraphQL */ `
query SiteTree($id: ID!) {
  organization(id: $id) {
    sites(limit: 5) {
      count
      items {
        id title published visibility urls { published }
        structure { type structure { ... on SiteSection { id } ... on SiteSectionGroup { id } ... on SiteSpace { id } } }
        sectionGroups(limit: 100) { count items { id title sectionGroup children { ... on SiteSection { id title } ... on SiteSectionGroup { id } } } }
        sections(limit: 100) {
          count
          items {
            id title path default condition sectionGroup urls { published }
            siteSpaces {
              id path default hidden title urls { published }
              space { id title visibility permissions { edit } content { id pageList { id title path depth } pages { id title path body { ... on PageMarkdownBody { markdown } } } } }
            }
          }
        }
      }
    }
  }
}`;

/** An organization with `spaceCount` spaces of two pages, and a published site of `sections` sections × every space. */
async function orgWithSite(sections: number, spaceCount: number, groups: number) {
  const owner = await h.owner();
  const reader = await h.user();
  await h.addMember(owner.orgId, reader.id, 'read');
  const spaces: string[] = [];
  for (let i = 0; i < spaceCount; i++) {
    const space = await s.space(owner, `Space ${i}`);
    const res = await h.call('POST', `/v1/spaces/${space.id}/content`, {
      token: owner.token,
      body: {
        changes: [
          { operation: 'insert_page', title: 'Intro', document: { markdown: 'Hello' } },
          { operation: 'insert_page', title: 'Usage', document: { markdown: 'Use it' } },
        ],
      },
    });
    expect(res.status).toBe(200);
    spaces.push(space.id);
  }
  const site = await s.site(owner, owner.orgId, { title: 'Docs' });
  const sectionIds: string[] = [];
  for (let i = 0; i < sections; i++)
    sectionIds.push((await s.section(owner, owner.orgId, site.id, { spaceId: spaces[0], title: `Section ${i}` })).id);
  // The other site spaces straight into the table (the API path is covered by the route tests).
  await h.db.prisma.siteSpace.createMany({
    data: sectionIds.flatMap((sectionId) =>
      spaces.slice(1).map((spaceId, i) => ({ id: newId(), siteId: site.id, sectionId, spaceId, path: `space-${i + 1}`, position: i + 2 })),
    ),
  });
  for (let g = 0; g < groups; g++) await s.group(owner, owner.orgId, site.id, { title: `Group ${g}`, sections: [sectionIds[g]] });
  await s.ok('publishSite', 'POST', `${s.sitePath(owner.orgId, site.id)}/publish`, { token: owner.token });
  return { owner, reader };
}

async function statementsFor(token: string, orgId: string) {
  const { statements, body } = await statementsOnBothLanes(h, token, SITE_TREE, { id: orgId });
  return { statements, data: body.data };
}

describe('nested site query', () => {
  it('issues the same number of SQL statements for 2 and for 50 sections × 20 site spaces (owner and reader)', async () => {
    const small = await orgWithSite(2, 20, 1);
    const large = await orgWithSite(50, 20, 5);

    const smallOwner = await statementsFor(small.owner.token, small.owner.orgId);
    const largeOwner = await statementsFor(large.owner.token, large.owner.orgId);
    const site = largeOwner.data.organization.sites.items[0];
    expect(site.sections.count).toBe(50);
    expect(site.sections.items.every((c: any) => c.siteSpaces.length === 20)).toBe(true);
    expect(site.sections.items[0].siteSpaces[0].space.content.pageList.map((p: any) => p.title)).toEqual(['Intro', 'Usage']);
    expect(site.sectionGroups.count).toBe(5);
    expect(site.structure.structure).toHaveLength(50);
    expect(smallOwner.data.organization.sites.items[0].sections.count).toBe(2);
    expect(largeOwner.statements).toEqual(smallOwner.statements);

    const smallReader = await statementsFor(small.reader.token, small.owner.orgId);
    const largeReader = await statementsFor(large.reader.token, large.owner.orgId);
    expect(largeReader.data.organization.sites.items[0].sections.items[49].siteSpaces[19].space.permissions.edit).toBe(false);
    expect(largeReader.statements).toEqual(smallReader.statements);

    expect({ owner: largeOwner.statements, reader: largeReader.statements }).toMatchInlineSnapshot(`
      {
        "owner": {
          "direct": 10,
          "yoga": 13,
        },
        "reader": {
          "direct": 10,
          "yoga": 12,
        },
      }
    `);
  });

  it('the REST lists of sections, site spaces and groups, and the published profile, issue a constant number of statements', async () => {
    const small = await orgWithSite(2, 3, 1);
    const large = await orgWithSite(12, 6, 3);
    const count = async (o: Awaited<ReturnType<typeof orgWithSite>>) => {
      const sites = await s.ok('listSites', 'GET', `/v1/orgs/${o.owner.orgId}/sites`, { token: o.reader.token });
      const path = s.sitePath(o.owner.orgId, sites.items[0].id);
      const counts: Record<string, number> = {};
      for (const [name, operationId, url] of [
        ['sections', 'listSiteSections', `${path}/sections?limit=100`],
        ['siteSpaces', 'listSiteSpaces', `${path}/site-spaces?limit=1000`],
        ['groups', 'listSiteSectionGroups', `${path}/section-groups`],
        ['published', 'getPublishedContentSite', `${path}/published`],
      ] as const) {
        const before = h.db.statements.count;
        await s.ok(operationId, 'GET', url, { token: o.reader.token });
        counts[name] = h.db.statements.count - before;
      }
      return counts;
    };
    const smallCounts = await count(small);
    const largeCounts = await count(large);
    expect(largeCounts).toEqual(smallCounts);
    expect(largeCounts).toMatchInlineSnapshot(`
      {
        "groups": 7,
        "published": 9,
        "sections": 7,
        "siteSpaces": 7,
      }
    `);
  });
});
