import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { writeLive } from '../support/content-writes.js';
import { siteHelpers } from '../support/sites.js';

/**
 * Site search (official searchSiteContent, POST /orgs/{org}/sites/{site}/search): scopes `all`,
 * `default` (with a current site space, its language, restrictTo), `specific`, the deprecated body
 * forms; answers grouped by space and valid by the official schema; 400s naming the field;
 * outsiders refused; an unpublished site searches only the spaces the caller may read. GraphQL's
 * Site.search answers the same. One seeded site for the whole file.
 */
let h: Harness;
const s = siteHelpers(() => h);
let t: World;
let other: World;
let siteId: string;
let path: string;
let ssGuideEn: string;
let ssGuideFr: string;
let ssApi: string;
let spaceGuideEn: string;
let spaceGuideFr: string;
let spaceApi: string;

beforeAll(async () => {
  h = await setupHarness();
  t = await h.world('Site search');
  other = await h.world('Elsewhere');
  const guideEn = await s.space(t.owner, 'Guide EN', { language: 'en' });
  const guideFr = await s.space(t.owner, 'Guide FR', { language: 'fr' });
  const api = await s.space(t.owner, 'API EN', { language: 'en' });
  const apiFr = await s.space(t.owner, 'API FR', { language: 'fr' });
  [spaceGuideEn, spaceGuideFr, spaceApi] = [guideEn.id, guideFr.id, api.id];
  await writeLive(h, t.owner.token, guideEn.id, [
    {
      operation: 'insert_page',
      title: 'Quasar setup',
      document: { markdown: 'Install the quasar engine.\n\n## Tuning\n\nTune the quasar.' },
    },
    { operation: 'insert_page', title: 'Other', document: { markdown: 'Nothing here.' } },
  ]);
  await writeLive(h, t.owner.token, guideFr.id, [
    { operation: 'insert_page', title: 'Installation', document: { markdown: 'Le moteur quasar.' } },
  ]);
  await writeLive(h, t.owner.token, api.id, [
    { operation: 'insert_page', title: 'Endpoints', document: { markdown: 'The quasar endpoint answers JSON.' } },
  ]);
  await writeLive(h, t.owner.token, apiFr.id, [{ operation: 'insert_page', title: 'Points', document: { markdown: 'Le point quasar.' } }]);
  const site = await s.site(t.owner, t.orgId, { title: 'Docs' });
  siteId = site.id;
  path = s.sitePath(t.orgId, siteId);
  const guides = await s.section(t.owner, t.orgId, siteId, { spaceId: guideEn.id, title: 'Guides' });
  ssGuideEn = guides.siteSpaces[0].id;
  ssGuideFr = (await s.siteSpace(t.owner, t.orgId, siteId, { spaceId: guideFr.id, sectionId: guides.id })).id;
  const apiSection = await s.section(t.owner, t.orgId, siteId, { spaceId: api.id, title: 'API' });
  ssApi = apiSection.siteSpaces[0].id;
  await s.siteSpace(t.owner, t.orgId, siteId, { spaceId: apiFr.id, sectionId: apiSection.id });
  await s.ok('publishSite', 'POST', `${path}/publish`, { token: t.owner.token });
});

const search = (body: Record<string, unknown>, token = t.reader.token, query = '') =>
  h.rest('searchSiteContent', 'POST', `${path}/search${query}`, { token, body });
const spacesOf = (res: { body: any }) => (res.body.items as { id: string }[]).map((i) => i.id).sort();

describe('searchSiteContent', () => {
  it('searches the default scope (each section default) without a scope, grouped by space, as the official schema says', async () => {
    const res = await search({ query: 'quasar', scope: { mode: 'default' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The official body requires a scope (or a deprecated mode); without one, the default scope.
    const bare = await h.call('POST', `${path}/search`, { token: t.reader.token, body: { query: 'quasar' } });
    expect(bare.body).toEqual(res.body);
    expect(spacesOf(res)).toEqual([spaceGuideEn, spaceApi].sort());
    expect(res.body.count).toBe(2);
    const guide = res.body.items.find((i: any) => i.id === spaceGuideEn);
    expect(guide).toMatchObject({ type: 'space', title: 'Guide EN' });
    expect(guide.pages.map((p: any) => p.title)).toEqual(['Quasar setup']);
    expect(guide.pages[0].sections.map((x: any) => x.title).sort()).toEqual(['Quasar setup', 'Tuning']);
    // Ranks are global: 1..3 over the pages of every space.
    expect(res.body.items.flatMap((i: any) => i.pages.map((p: any) => p.rank)).sort()).toEqual([1, 2]);
  });

  it('scope all, specific, default with a current site space (language), restrictTo, and the deprecated forms', async () => {
    expect(spacesOf(await search({ query: 'quasar', scope: { mode: 'all' } }))).toHaveLength(4);
    expect(spacesOf(await search({ query: 'quasar', mode: 'all' }))).toHaveLength(4);
    expect(spacesOf(await search({ query: 'quasar', scope: { mode: 'specific', siteSpaceIds: [ssGuideFr] } }))).toEqual([spaceGuideFr]);
    expect(spacesOf(await search({ query: 'quasar', siteSpaceIds: [ssGuideFr, ssApi] }))).toEqual([spaceGuideFr, spaceApi].sort());
    // The French guide is current: the API section's French variant stands in for its default.
    const fr = await search({ query: 'quasar', scope: { mode: 'default', currentSiteSpace: ssGuideFr } });
    expect(fr.body.items.map((i: any) => i.title).sort()).toEqual(['API FR', 'Guide FR']);
    expect((await search({ query: 'quasar', mode: 'current', siteSpaceId: ssGuideFr })).body.items.map((i: any) => i.title).sort()).toEqual(
      ['API FR', 'Guide FR'],
    );
    expect(
      spacesOf(await search({ query: 'quasar', scope: { mode: 'default', currentSiteSpace: ssGuideEn, restrictTo: 'currentSiteSpace' } })),
    ).toEqual([spaceGuideEn]);
    expect(
      spacesOf(await search({ query: 'quasar', scope: { mode: 'default', currentSiteSpace: ssGuideEn, restrictTo: 'otherSiteSpaces' } })),
    ).toEqual([spaceApi]);
  });

  it('pages through spaces with page/limit', async () => {
    const first = await search({ query: 'quasar', scope: { mode: 'all' } }, t.reader.token, '?limit=3');
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(3);
    expect(first.body.count).toBe(4);
    const second = await search({ query: 'quasar', scope: { mode: 'all' } }, t.reader.token, `?limit=3&page=${first.body.next.page}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next).toBeUndefined();
    expect(new Set([...spacesOf(first), ...spacesOf(second)]).size).toBe(4);
  });

  it('GraphQL Site.search answers the same', async () => {
    const res = await h.graphql(
      t.reader.token,
      `query($o: ID!, $s: ID!) { site(organizationId: $o, id: $s) { search(query: "quasar", scope: {mode: all}) { count items { id pages { title rank } } } } }`,
      { o: t.orgId, s: siteId },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.site.search.count).toBe(4);
  });

  it('bad input is a 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'query'],
      [{ query: 'x'.repeat(513) }, 'query'],
      [{ query: 7 }, 'query'],
      [{ query: 'quasar', scope: { mode: 'nope' } }, 'scope.mode'],
      [{ query: 'quasar', scope: 'all' }, 'scope'],
      [{ query: 'quasar', scope: { mode: 'specific', siteSpaceIds: [] } }, 'scope.siteSpaceIds'],
      [{ query: 'quasar', scope: { mode: 'specific', siteSpaceIds: ['nope'] } }, 'scope.siteSpaceIds[0]'],
      [{ query: 'quasar', scope: { mode: 'default', restrictTo: 'currentSiteSpace' } }, 'scope.currentSiteSpace'],
      [{ query: 'quasar', scope: { mode: 'default', currentSiteSpace: ssApi, restrictTo: 'elsewhere' } }, 'scope.restrictTo'],
      [{ query: 'quasar', mode: 'current' }, 'siteSpaceId'],
      [{ query: 'quasar', mode: 'sideways' }, 'mode'],
    ];
    for (const [body, field] of cases) {
      const res = await h.call('POST', `${path}/search`, { token: t.reader.token, body });
      expect(res.status, JSON.stringify([body, res.body])).toBe(400);
      expect(res.body.error.message.startsWith(`${field}:`), `${JSON.stringify(body)} → ${res.body.error.message}`).toBe(true);
    }
    const limit = await h.call('POST', `${path}/search?limit=0`, { token: t.reader.token, body: { query: 'quasar' } });
    expect(limit.status).toBe(400);
  });

  it('refuses callers without rights: outsiders and other organizations get 404, no token 401', async () => {
    const body = { query: 'quasar', mode: 'all' };
    await s.expectRefused('searchSiteContent', 'POST', `${path}/search`, { token: t.outsider.token, body }, 404);
    await s.expectRefused('searchSiteContent', 'POST', `${path}/search`, { token: other.owner.token, body }, 404);
    await s.expectRefused(
      'searchSiteContent',
      'POST',
      `/v1/orgs/${other.orgId}/sites/${siteId}/search`,
      { token: other.owner.token, body },
      404,
    );
    await s.expectRefused('searchSiteContent', 'POST', `${path}/search`, { token: null, body }, 401);
  });

  it('an unpublished site searches only the spaces the caller may read', async () => {
    const secret = await s.space(t.owner, 'Secret');
    await writeLive(h, t.owner.token, secret.id, [
      { operation: 'insert_page', title: 'Hidden quasar', document: { markdown: 'quasar inside' } },
    ]);
    // A guest reads no space without a grant.
    const draft = await s.site(t.owner, t.orgId, { title: 'Draft' });
    await s.section(t.owner, t.orgId, draft.id, { spaceId: secret.id, title: 'Secret' });
    const draftPath = s.sitePath(t.orgId, draft.id);
    const asOwner = await h.rest('searchSiteContent', 'POST', `${draftPath}/search`, {
      token: t.owner.token,
      body: { query: 'quasar', mode: 'all' },
    });
    expect(spacesOf(asOwner)).toEqual([secret.id]);
    const asGuest = await h.rest('searchSiteContent', 'POST', `${draftPath}/search`, {
      token: t.guest.token,
      body: { query: 'quasar', mode: 'all' },
    });
    expect(asGuest.status).toBe(200);
    expect(asGuest.body.items).toEqual([]);
  });
});

describe('sortSiteStructure', () => {
  const sort = (body: unknown, token = t.owner.token) => h.rest('sortSiteStructure', 'PATCH', `${path}/structure/sort`, { token, body });

  it('moves a section, a site space and a group before or after a sibling, answering the moved item', async () => {
    const [guides, api] = await s.sectionIds(t.owner.token, t.orgId, siteId);
    const moved = await sort({ item: { type: 'site-section', id: api }, position: { before: { type: 'site-section', id: guides } } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body).toMatchObject({ object: 'site-section', id: api });
    expect(await s.sectionIds(t.owner.token, t.orgId, siteId)).toEqual([api, guides]);

    const space = await sort({ item: { type: 'site-space', id: ssGuideFr }, position: { before: { type: 'site-space', id: ssGuideEn } } });
    expect(space.status).toBe(200);
    expect(space.body).toMatchObject({ object: 'site-space', id: ssGuideFr });
    const order = await s.siteSpaceIds(t.owner.token, t.orgId, siteId);
    expect(order.indexOf(ssGuideFr)).toBeLessThan(order.indexOf(ssGuideEn));

    const group = await s.group(t.owner, t.orgId, siteId, { title: 'More' });
    const g = await sort({ item: { type: 'site-section-group', id: group.id }, position: { before: { type: 'site-section', id: api } } });
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    expect(g.body).toMatchObject({ id: group.id, title: 'More' });
    // An empty position: the end of its level.
    expect((await sort({ item: { type: 'site-section', id: api }, position: {} })).status).toBe(200);
    expect((await s.sectionIds(t.owner.token, t.orgId, siteId)).at(-1)).toBe(api);
  });

  it('bad input is a 400 naming the field; unknown items 404; readers 403, outsiders 404; nothing changes', async () => {
    const [first] = await s.sectionIds(t.owner.token, t.orgId, siteId);
    const cases: [unknown, string][] = [
      [{ position: {} }, 'item'],
      [{ item: { type: 'page', id: 'x' }, position: {} }, 'item.type'],
      [{ item: { type: 'site-section', id: first } }, 'position'],
      [{ item: { type: 'site-section', id: first }, position: { before: { type: 'site-section', id: 'nope' } } }, 'position.before.id'],
      [{ item: { type: 'site-space', id: ssApi }, position: { after: { type: 'site-section', id: first } } }, 'position.after.type'],
      [
        {
          item: { type: 'site-section', id: first },
          position: { before: { type: 'site-section', id: first }, after: { type: 'site-section', id: first } },
        },
        'position',
      ],
    ];
    for (const [body, field] of cases) {
      const before = await s.snapshot();
      const res = await h.call('PATCH', `${path}/structure/sort`, { token: t.owner.token, body });
      expect(res.status, JSON.stringify([body, res.body])).toBe(400);
      expect(res.body.error.message.startsWith(`${field}:`), `${JSON.stringify(body)} → ${res.body.error.message}`).toBe(true);
      expect(await s.snapshot()).toBe(before);
    }
    const body = { item: { type: 'site-section', id: first }, position: {} };
    await s.expectRefused(
      'sortSiteStructure',
      'PATCH',
      `${path}/structure/sort`,
      { token: t.owner.token, body: { item: { type: 'site-section', id: 'nope' }, position: {} } },
      404,
    );
    await s.expectRefused(
      'sortSiteStructure',
      'PATCH',
      `${path}/structure/sort`,
      { token: t.owner.token, body: { item: { type: 'site-external-link', id: 'nope' }, position: {} } },
      404,
    );
    await s.expectRefused('sortSiteStructure', 'PATCH', `${path}/structure/sort`, { token: t.reader.token, body }, 403);
    await s.expectRefused('sortSiteStructure', 'PATCH', `${path}/structure/sort`, { token: t.outsider.token, body }, 404);
  });
});

describe('duplicateSiteSpace', () => {
  it('copies the space and puts it right after the original, searchable at once', async () => {
    const res = await h.rest('duplicateSiteSpace', 'POST', `${path}/site-spaces/${ssApi}/duplicate`, {
      token: t.owner.token,
      body: { draft: false },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ object: 'site-space', space: { title: 'API EN (copy)' } });
    expect(res.body.space.id).not.toBe(spaceApi);
    const order = await s.siteSpaceIds(t.owner.token, t.orgId, siteId);
    expect(order[order.indexOf(ssApi) + 1]).toBe(res.body.id);
    const found = await search({ query: 'quasar', scope: { mode: 'specific', siteSpaceIds: [res.body.id] } });
    expect(found.body.items.map((i: any) => i.pages.map((p: any) => p.title))).toEqual([['Endpoints']]);
  });

  it('bad input 400 naming the field; unknown site space 404; readers 403, outsiders 404; nothing changes', async () => {
    for (const [body, field] of [
      [{ draft: true }, 'draft'],
      [{ draft: 'yes' }, 'draft'],
      [{ title: 'x' }, 'title'],
    ] as const) {
      const before = await s.snapshot();
      const res = await h.call('POST', `${path}/site-spaces/${ssApi}/duplicate`, { token: t.owner.token, body });
      expect(res.status).toBe(400);
      expect(res.body.error.message.startsWith(`${field}:`), res.body.error.message).toBe(true);
      expect(await s.snapshot()).toBe(before);
    }
    await s.expectRefused('duplicateSiteSpace', 'POST', `${path}/site-spaces/nope/duplicate`, { token: t.owner.token, body: {} }, 404);
    await s.expectRefused('duplicateSiteSpace', 'POST', `${path}/site-spaces/${ssApi}/duplicate`, { token: t.reader.token, body: {} }, 403);
    await s.expectRefused(
      'duplicateSiteSpace',
      'POST',
      `${path}/site-spaces/${ssApi}/duplicate`,
      { token: t.outsider.token, body: {} },
      404,
    );
  });
});
