import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { siteHelpers } from '../support/sites.js';

/**
 * A site's structure: sections, section groups and site spaces — add, update, delete, move
 * (fractional positions, under the site's lock) — each route three ways (works and matches the
 * official schema; bad input refused, nothing changed; callers without rights refused), and a
 * rights table over every site route.
 */

let h: Harness;
const s = siteHelpers(() => h);
beforeAll(async () => {
  h = await setupHarness();
});

type Team = Awaited<ReturnType<typeof s.team>>;

/** A site with `n` sections, each holding one site space of its own space. */
async function siteWithSections(t: Team, n: number, opts: { visibility?: string } = {}) {
  const site = await s.site(t.owner, t.orgId, opts);
  const sections: any[] = [];
  for (let i = 0; i < n; i++) {
    const space = await s.space(t.owner, `Space ${i}`);
    sections.push(await s.section(t.owner, t.orgId, site.id, { spaceId: space.id, title: `Section ${i}` }));
  }
  return { site, sections, path: s.sitePath(t.orgId, site.id) };
}

describe('sections', () => {
  let t: Team;
  beforeAll(async () => {
    t = await s.team();
  });

  it('add (201): the space becomes the first site space; the title defaults to the space title; the first section is the default', async () => {
    const space = await s.space(t.owner, 'Guides');
    const site = await s.site(t.owner, t.orgId);
    const section = await s.section(t.creator, t.orgId, site.id, { spaceId: space.id, icon: 'book' });
    expect(section).toEqual({
      object: 'site-section',
      id: expect.any(String),
      title: 'Guides',
      default: true,
      path: 'guides',
      icon: 'book',
      draft: false,
      urls: {},
      siteSpaces: [
        expect.objectContaining({
          object: 'site-space',
          path: 'guides',
          section: section.id,
          default: true,
          space: expect.objectContaining({ id: space.id }),
        }),
      ],
    });
    const second = await s.section(t.owner, t.orgId, site.id, { spaceId: space.id, title: 'Guides' });
    expect(second).toMatchObject({ title: 'Guides', path: 'guides-2', default: false });
    expect(await s.sectionIds(t.reader.token, t.orgId, site.id)).toEqual([section.id, second.id]);
    expect((await s.ok('getSiteById', 'GET', s.sitePath(t.orgId, site.id), { token: t.owner.token })).siteSpaces).toBe(2);
  });

  it('the first section of a site with root site spaces gathers them into a default section of their own', async () => {
    const a = await s.space(t.owner, 'A');
    const b = await s.space(t.owner, 'B');
    const site = await s.site(t.owner, t.orgId, { title: 'Handbook', spaces: [a.id, b.id] });
    const path = s.sitePath(t.orgId, site.id);
    const before = (await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces`, { token: t.owner.token })).items.map((x: any) => x.id);
    const added = await s.section(t.owner, t.orgId, site.id, { spaceId: b.id, title: 'Extra' });
    const sections = (await s.ok('listSiteSections', 'GET', `${path}/sections`, { token: t.owner.token })).items;
    expect(sections.map((x: any) => [x.title, x.default, x.siteSpaces.map((ss: any) => ss.id)])).toEqual([
      ['Handbook', true, before],
      ['Extra', false, [added.siteSpaces[0].id]],
    ]);
    const structure = await s.ok('getSiteStructure', 'GET', `${path}/structure`, { token: t.owner.token });
    expect(structure.type).toBe('sections');
  });

  it('list pages, and a valid shareKey makes the published URLs carry it (an unknown one is refused)', async () => {
    const { site, path } = await siteWithSections(t, 3, { visibility: 'share-link' });
    await s.ok('publishSite', 'POST', `${path}/publish`, { token: t.owner.token });
    const page = await s.ok('listSiteSections', 'GET', `${path}/sections?limit=2`, { token: t.reader.token });
    expect(page.items).toHaveLength(2);
    expect(page.count).toBe(3);
    const rest = await s.ok('listSiteSections', 'GET', `${path}/sections?limit=2&page=${encodeURIComponent(page.next.page)}`, {
      token: t.reader.token,
    });
    expect(rest.items).toHaveLength(1);
    const base = `${h.config.publicUrl}/public/${t.orgId}/sites/${site.id}`;
    expect(page.items.map((x: any) => x.urls.published)).toEqual([base, `${base}/section-1`]);
    const link = await s.ok('createSiteShareLink', 'POST', `${path}/share-links`, { token: t.owner.token, body: { name: 'k' } }, 201);
    const key = new URL(link.urls.published).searchParams.get('share')!;
    const withKey = await s.ok('listSiteSections', 'GET', `${path}/sections?shareKey=${key}`, { token: t.reader.token });
    expect(withKey.items[1].urls.published).toBe(`${base}/section-1?share=${key}`);
    expect(withKey.items[1].siteSpaces[0].urls.published).toBe(`${base}/section-1?share=${key}`);
    await s.expectRefused('listSiteSections', 'GET', `${path}/sections?shareKey=nope`, { token: t.reader.token }, 400, /shareKey/);
    await s.expectRefused('listSiteSections', 'GET', `${path}/sections?limit=1001`, { token: t.reader.token }, 400, /limit/);
  });

  it('add refuses bad input (400), unknown or invisible spaces (404), changing nothing', async () => {
    const site = await s.site(t.owner, t.orgId);
    const path = `${s.sitePath(t.orgId, site.id)}/sections`;
    const space = await s.space(t.owner, 'S');
    const token = t.owner.token;
    await s.expectRefused('addSectionToSite', 'POST', path, { token, body: {} }, 400, /spaceId/);
    await s.expectRefused('addSectionToSite', 'POST', path, { token, body: { spaceId: space.id, title: 'x' } }, 400, /title/);
    await s.expectRefused('addSectionToSite', 'POST', path, { token, body: { spaceId: space.id, title: 'x'.repeat(129) } }, 400, /title/);
    await s.expectRefused('addSectionToSite', 'POST', path, { token, body: { spaceId: space.id, icon: 'i'.repeat(51) } }, 400, /icon/);
    await s.expectRefused('addSectionToSite', 'POST', path, { token, body: { spaceId: space.id, extra: true } }, 400, /extra/);
    await s.expectRefused('addSectionToSite', 'POST', path, { token, body: { spaceId: 'missing' } }, 404, /Space/);
    await s.expectRefused(
      'addSectionToSite',
      'POST',
      `${s.sitePath(t.orgId, 'missing')}/sections`,
      { token, body: { spaceId: space.id } },
      404,
      /Site/,
    );
  });

  it('update: title, path, icon, description, condition (unset keeps, null removes) and the default site space', async () => {
    const { site, sections, path } = await siteWithSections(t, 2);
    const url = `${path}/sections/${sections[1].id}`;
    const second = await s.siteSpace(t.owner, t.orgId, site.id, {
      spaceId: (await s.space(t.owner, 'Other')).id,
      sectionId: sections[1].id,
    });
    const updated = await s.ok('updateSiteSectionById', 'PATCH', url, {
      token: t.creator.token,
      body: {
        title: 'Renamed',
        path: 'renamed/v2',
        icon: 'gear',
        description: 'About',
        condition: 'visitor.claims.unsigned.beta == true',
        defaultSiteSpace: second.id,
      },
    });
    expect(updated).toMatchObject({
      title: 'Renamed',
      path: 'renamed/v2',
      icon: 'gear',
      description: 'About',
      condition: 'visitor.claims.unsigned.beta == true',
    });
    expect(updated.siteSpaces.map((x: any) => [x.id, x.default])).toEqual([
      [sections[1].siteSpaces[0].id, false],
      [second.id, true],
    ]);
    const kept = await s.ok('updateSiteSectionById', 'PATCH', url, { token: t.owner.token, body: { title: 'Again' } });
    expect(kept.condition).toBe('visitor.claims.unsigned.beta == true');
    const removed = await s.ok('updateSiteSectionById', 'PATCH', url, {
      token: t.owner.token,
      body: { condition: null, icon: null, description: null },
    });
    expect(removed.condition).toBeUndefined();
    expect(removed.icon).toBeUndefined();
    expect(removed.description).toBeUndefined();
    expect(removed.title).toBe('Again');
  });

  it('update refuses bad input (400), a path in use (409), a missing section (404), changing nothing', async () => {
    const { sections, path } = await siteWithSections(t, 2);
    const url = `${path}/sections/${sections[1].id}`;
    const token = t.owner.token;
    for (const [body, message] of [
      [{ condition: 'visitor.claims.beta ==' }, /condition: is not a valid expression/],
      [{ condition: 'a b' }, /condition: must be a single expression/],
      [{ condition: 'x'.repeat(1025) }, /condition/],
      [{ title: 'x' }, /title/],
      [{ title: null }, /title/],
      [{ path: '' }, /path/],
      [{ path: 'has space' }, /path/],
      [{ path: '/leading' }, /path/],
      [{ description: 'd'.repeat(257) }, /description/],
      [{ icon: 'i'.repeat(51) }, /icon/],
      [{ defaultSiteSpace: sections[0].siteSpaces[0].id }, /defaultSiteSpace/],
      [{ defaultSiteSpace: null }, /defaultSiteSpace/],
    ] as const) {
      await s.expectRefused('updateSiteSectionById', 'PATCH', url, { token, body }, 400, message);
    }
    await s.expectRefused('updateSiteSectionById', 'PATCH', url, { token, body: { path: sections[0].path } }, 409, /path/);
    await s.expectRefused('updateSiteSectionById', 'PATCH', `${path}/sections/missing`, { token, body: { title: 'Fine' } }, 404);
  });

  it('delete (205) removes the section and its site spaces; the next becomes the default; 404 when missing', async () => {
    const { site, sections, path } = await siteWithSections(t, 2);
    const res = await h.rest('deleteSiteSectionById', 'DELETE', `${path}/sections/${sections[0].id}`, { token: t.creator.token });
    expect(res.status).toBe(205);
    expect(await h.db.prisma.siteSpace.count({ where: { sectionId: sections[0].id } })).toBe(0);
    const left = (await s.ok('listSiteSections', 'GET', `${path}/sections`, { token: t.owner.token })).items;
    expect(left.map((x: any) => [x.id, x.default])).toEqual([[sections[1].id, true]]);
    await s.expectRefused(
      'deleteSiteSectionById',
      'DELETE',
      `${path}/sections/${sections[0].id}`,
      { token: t.owner.token },
      404,
      /^Site section not found$/,
    );
    await s.expectRefused(
      'deleteSiteSectionById',
      'DELETE',
      `${s.sitePath(t.orgId, 'missing')}/sections/x`,
      { token: t.owner.token },
      404,
      /^Site not found$/,
    );
    expect((await s.ok('getSiteById', 'GET', s.sitePath(t.orgId, site.id), { token: t.owner.token })).siteSpaces).toBe(1);
  });
});

describe('moving sections', () => {
  let t: Team;
  beforeAll(async () => {
    t = await s.team();
  });

  const move = (path: string, id: string, body: unknown, token = t.owner.token) =>
    s.ok('moveSiteSection', 'POST', `${path}/sections/${id}/move`, { token, body });
  const before = (id: string) => ({ position: { before: { type: 'site-section', siteSection: id } } });
  const after = (id: string) => ({ position: { after: { type: 'site-section', siteSection: id } } });

  it('moves before / after another section and to the end, writing only the moved row', async () => {
    const { site, sections, path } = await siteWithSections(t, 4);
    const [a, b, c, d] = sections.map((x) => x.id);
    const positions = async () =>
      Object.fromEntries((await h.db.prisma.siteSection.findMany({ where: { siteId: site.id } })).map((x) => [x.id, x.position]));
    const start = await positions();
    const moved = await move(path, d, before(b), t.creator.token);
    expect(moved.id).toBe(d);
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([a, d, b, c]);
    const after1 = await positions();
    for (const id of [a, b, c]) expect(after1[id]).toBe(start[id]);
    await move(path, a, after(c));
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([d, b, c, a]);
    await move(path, d, {});
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([b, c, a, d]);
    // A move that changes nothing is accepted and keeps the order.
    await move(path, c, after(b));
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([b, c, a, d]);
  });

  it('keeps a stable order through many moves to the same place (positions spread out when floats run out)', async () => {
    const { site, sections, path } = await siteWithSections(t, 3);
    const [a, b, c] = sections.map((x) => x.id);
    for (let i = 0; i < 60; i++) {
      await move(path, i % 2 ? b : c, after(a));
    }
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([a, b, c]);
    const rows = await h.db.prisma.siteSection.findMany({ where: { siteId: site.id } });
    expect(new Set(rows.map((r) => r.position)).size).toBe(3);
  });

  it('edge cases: before itself 400, after a missing id 400, a section of another site 400, both pointers 400, wrong type 400, no such section 404', async () => {
    const { sections, path } = await siteWithSections(t, 2);
    const other = await siteWithSections(t, 1);
    const url = `${path}/sections/${sections[0].id}/move`;
    const token = t.owner.token;
    await s.expectRefused(
      'moveSiteSection',
      'POST',
      url,
      { token, body: before(sections[0].id) },
      400,
      /position\.before\.siteSection: cannot be the section/,
    );
    await s.expectRefused(
      'moveSiteSection',
      'POST',
      url,
      { token, body: after('missing') },
      400,
      /position\.after\.siteSection: is not a section of this site/,
    );
    await s.expectRefused(
      'moveSiteSection',
      'POST',
      url,
      { token, body: after(other.sections[0].id) },
      400,
      /is not a section of this site/,
    );
    await s.expectRefused(
      'moveSiteSection',
      'POST',
      url,
      { token, body: { position: { ...before(sections[1].id).position, ...after(sections[1].id).position } } },
      400,
      /before or after/,
    );
    await s.expectRefused(
      'moveSiteSection',
      'POST',
      url,
      { token, body: { position: { before: { type: 'site-space', siteSection: sections[1].id } } } },
      400,
      /type/,
    );
    await s.expectRefused(
      'moveSiteSection',
      'POST',
      url,
      { token, body: { position: { before: { type: 'site-section' } } } },
      400,
      /siteSection/,
    );
    await s.expectRefused('moveSiteSection', 'POST', `${path}/sections/missing/move`, { token, body: {} }, 404);
    // A section of another site named in this site's path is not found here.
    await s.expectRefused(
      'moveSiteSection',
      'POST',
      `${path}/sections/${other.sections[0].id}/move`,
      { token, body: before(sections[0].id) },
      404,
    );
  });

  it('concurrent moves never lose a section (they queue on the site lock)', async () => {
    const { site, sections, path } = await siteWithSections(t, 12);
    const ids = sections.map((x) => x.id);
    const results = await Promise.all(
      ids
        .slice(1)
        .map((id, i) =>
          h.call('POST', `${path}/sections/${id}/move`, { token: t.owner.token, body: i % 2 ? before(ids[0]) : after(ids[0]) }),
        ),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const order = await s.sectionIds(t.owner.token, t.orgId, site.id);
    expect([...order].sort()).toEqual([...ids].sort());
    const rows = await h.db.prisma.siteSection.findMany({ where: { siteId: site.id } });
    expect(new Set(rows.map((r) => r.position)).size).toBe(12);
  });

  it('a section moved next to a section inside a group joins the group; without position it returns to the root', async () => {
    const { site, sections, path } = await siteWithSections(t, 3);
    const [a, b, c] = sections.map((x) => x.id);
    const group = await s.group(t.owner, t.orgId, site.id, { title: 'Group', sections: [b] });
    const moved = await move(path, c, before(b));
    expect(moved.sectionGroup).toBe(group.id);
    const groups = await s.ok('listSiteSectionGroups', 'GET', `${path}/section-groups`, { token: t.owner.token });
    expect(groups.items[0].children.map((x: any) => x.id)).toEqual([c, b]);
    const back = await move(path, c, {});
    expect(back.sectionGroup).toBeUndefined();
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([a, b, c]);
  });
});

describe('section groups', () => {
  let t: Team;
  beforeAll(async () => {
    t = await s.team();
  });

  it('create (201) with sections and a parent; list nests children (sections and groups) in order', async () => {
    const { site, sections, path } = await siteWithSections(t, 3);
    const [a, b, c] = sections.map((x) => x.id);
    const outer = await s.group(t.creator, t.orgId, site.id, { title: 'Outer', icon: 'folder', sections: [c, a] });
    expect(outer).toMatchObject({ object: 'site-section-group', title: 'Outer', icon: 'folder' });
    expect(outer.children.map((x: any) => x.id)).toEqual([c, a]);
    expect(outer.sections.map((x: any) => x.id)).toEqual([c, a]);
    const inner = await s.group(t.owner, t.orgId, site.id, { title: 'Inner', parent: outer.id, sections: [b] });
    expect(inner.sectionGroup).toBe(outer.id);
    const list = await s.ok('listSiteSectionGroups', 'GET', `${path}/section-groups`, { token: t.reader.token });
    expect(list.items.map((g: any) => g.id)).toEqual([outer.id, inner.id]);
    expect(list.items[0].children.map((x: any) => [x.object, x.id])).toEqual([
      ['site-section', c],
      ['site-section', a],
      ['site-section-group', inner.id],
    ]);
    expect(list.items[0].children[2].children.map((x: any) => x.id)).toEqual([b]);
    expect(list.items[0].sections.map((x: any) => x.id)).toEqual([c, a]);
    const structure = await s.ok('getSiteStructure', 'GET', `${path}/structure`, { token: t.owner.token });
    expect(structure.structure.map((x: any) => x.id)).toEqual([outer.id]);
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([c, a, b]);
    const published = await h.rest('getPublishedContentSite', 'GET', `${path}/published`, { token: t.owner.token });
    expect(published.status).toBe(404);
  });

  it('create refuses bad input (400), too deep a nesting (400), changing nothing', async () => {
    const { site, sections, path } = await siteWithSections(t, 1);
    const url = `${path}/section-groups`;
    const token = t.owner.token;
    await s.expectRefused('addSectionGroupToSite', 'POST', url, { token, body: {} }, 400, /title/);
    await s.expectRefused('addSectionGroupToSite', 'POST', url, { token, body: { title: '' } }, 400, /title/);
    await s.expectRefused('addSectionGroupToSite', 'POST', url, { token, body: { title: 'x'.repeat(101) } }, 400, /title/);
    await s.expectRefused('addSectionGroupToSite', 'POST', url, { token, body: { title: 'G', icon: 'i'.repeat(51) } }, 400, /icon/);
    await s.expectRefused(
      'addSectionGroupToSite',
      'POST',
      url,
      { token, body: { title: 'G', sections: ['missing'] } },
      400,
      /sections\[0\]/,
    );
    await s.expectRefused(
      'addSectionGroupToSite',
      'POST',
      url,
      { token, body: { title: 'G', sections: [sections[0].id, sections[0].id] } },
      400,
      /sections\[1\]/,
    );
    await s.expectRefused('addSectionGroupToSite', 'POST', url, { token, body: { title: 'G', parent: 'missing' } }, 400, /parent/);
    const g1 = await s.group(t.owner, t.orgId, site.id, { title: 'L1' });
    const g2 = await s.group(t.owner, t.orgId, site.id, { title: 'L2', parent: g1.id });
    const g3 = await s.group(t.owner, t.orgId, site.id, { title: 'L3', parent: g2.id });
    await s.expectRefused(
      'addSectionGroupToSite',
      'POST',
      url,
      { token, body: { title: 'L4', parent: g3.id } },
      400,
      /parent: section groups nest at most 3/,
    );
  });

  it('update (title, icon), add a section (201), remove a section (205, then 204: both still there), delete (children take its place; then 404)', async () => {
    const { site, sections, path } = await siteWithSections(t, 4);
    const [a, b, c, d] = sections.map((x) => x.id);
    const group = await s.group(t.owner, t.orgId, site.id, { title: 'G', sections: [b, c] });
    // The group was appended at the root: a, d, G(b, c).
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([a, d, b, c]);
    const url = `${path}/section-groups/${group.id}`;
    const renamed = await s.ok('updateSiteSectionGroupById', 'PATCH', url, {
      token: t.creator.token,
      body: { title: 'Renamed', icon: 'star' },
    });
    expect(renamed).toMatchObject({ title: 'Renamed', icon: 'star' });
    expect((await s.ok('updateSiteSectionGroupById', 'PATCH', url, { token: t.owner.token, body: { icon: null } })).icon).toBeUndefined();
    const added = await s.ok('addSectionToGroup', 'POST', `${url}/sections`, { token: t.owner.token, body: { sectionId: a } }, 201);
    expect(added.children.map((x: any) => x.id)).toEqual([b, c, a]);
    expect((await h.rest('removeSectionFromGroup', 'DELETE', `${url}/sections/${c}`, { token: t.owner.token })).status).toBe(205);
    expect((await h.rest('removeSectionFromGroup', 'DELETE', `${url}/sections/${c}`, { token: t.owner.token })).status).toBe(204);
    // c went right after the group: d, G(b, a), c.
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([d, b, a, c]);
    expect((await h.rest('deleteSiteSectionGroupById', 'DELETE', url, { token: t.creator.token })).status).toBe(205);
    expect(await s.sectionIds(t.owner.token, t.orgId, site.id)).toEqual([d, b, a, c]);
    const left = await s.ok('listSiteSections', 'GET', `${path}/sections`, { token: t.owner.token });
    expect(left.items.every((x: any) => x.sectionGroup === undefined)).toBe(true);
    await s.expectRefused('deleteSiteSectionGroupById', 'DELETE', url, { token: t.owner.token }, 404, /^Site section group not found$/);
    await s.expectRefused(
      'removeSectionFromGroup',
      'DELETE',
      `${url}/sections/${c}`,
      { token: t.owner.token },
      404,
      /^Site section group not found$/,
    );
  });

  it('move: before / after a section or a group (joining its parent), to the end; refuses cycles, depth, itself, strangers', async () => {
    const { site, sections, path } = await siteWithSections(t, 3);
    const [a, b, c] = sections.map((x) => x.id);
    const g1 = await s.group(t.owner, t.orgId, site.id, { title: 'G1', sections: [b] });
    const g2 = await s.group(t.owner, t.orgId, site.id, { title: 'G2', sections: [c] });
    const url = (id: string) => `${path}/section-groups/${id}/move`;
    const to = (where: 'before' | 'after', type: string, id: string) => ({ position: { [where]: { type, id } } });
    const token = t.owner.token;
    // Root: a, G1(b), G2(c). G2 before a.
    const moved = await s.ok('moveSiteSectionGroup', 'POST', url(g2.id), { token: t.creator.token, body: to('before', 'site-section', a) });
    expect(moved.children.map((x: any) => x.id)).toEqual([c]);
    expect(await s.sectionIds(token, t.orgId, site.id)).toEqual([c, a, b]);
    // Into G1, after b.
    const nested = await s.ok('moveSiteSectionGroup', 'POST', url(g2.id), { token, body: to('after', 'site-section', b) });
    expect(nested.sectionGroup).toBe(g1.id);
    expect(await s.sectionIds(token, t.orgId, site.id)).toEqual([a, b, c]);
    // G1 cannot go inside itself (after G2, which is inside G1), nor before itself.
    await s.expectRefused(
      'moveSiteSectionGroup',
      'POST',
      url(g1.id),
      { token, body: to('after', 'site-section-group', g2.id) },
      400,
      /inside the group/,
    );
    await s.expectRefused(
      'moveSiteSectionGroup',
      'POST',
      url(g1.id),
      { token, body: to('before', 'site-section-group', g1.id) },
      400,
      /cannot be the group/,
    );
    await s.expectRefused(
      'moveSiteSectionGroup',
      'POST',
      url(g1.id),
      { token, body: to('before', 'site-section', 'missing') },
      400,
      /is not a section of this site/,
    );
    await s.expectRefused('moveSiteSectionGroup', 'POST', url(g1.id), { token, body: to('before', 'site-space', a) }, 400, /type/);
    await s.expectRefused('moveSiteSectionGroup', 'POST', `${path}/section-groups/missing/move`, { token, body: {} }, 404);
    // Depth: G3 inside G2 inside G1 is 3 levels; G4 (holding G5) cannot go beside G3.
    const g3 = await s.group(t.owner, t.orgId, site.id, { title: 'G3', parent: g2.id });
    const g4 = await s.group(t.owner, t.orgId, site.id, { title: 'G4' });
    await s.group(t.owner, t.orgId, site.id, { title: 'G5', parent: g4.id });
    await s.expectRefused(
      'moveSiteSectionGroup',
      'POST',
      url(g4.id),
      { token, body: to('after', 'site-section-group', g3.id) },
      400,
      /at most 3 levels/,
    );
    // Without a position: the end of the root.
    const end = await s.ok('moveSiteSectionGroup', 'POST', url(g2.id), { token });
    expect(end.sectionGroup).toBeUndefined();
    const structure = await s.ok('getSiteStructure', 'GET', `${path}/structure`, { token });
    expect(structure.structure.map((x: any) => x.id)).toEqual([a, g1.id, g4.id, g2.id]);
  });

  it('update and add-section refuse bad input (400) and missing groups (404), changing nothing', async () => {
    const { site, sections, path } = await siteWithSections(t, 1);
    const other = await siteWithSections(t, 1);
    const group = await s.group(t.owner, t.orgId, site.id, { title: 'G' });
    const url = `${path}/section-groups/${group.id}`;
    const token = t.owner.token;
    await s.expectRefused('updateSiteSectionGroupById', 'PATCH', url, { token, body: { title: '' } }, 400, /title/);
    await s.expectRefused('updateSiteSectionGroupById', 'PATCH', url, { token, body: { title: null } }, 400, /title/);
    await s.expectRefused('updateSiteSectionGroupById', 'PATCH', `${path}/section-groups/missing`, { token, body: { title: 'T' } }, 404);
    await s.expectRefused('addSectionToGroup', 'POST', `${url}/sections`, { token, body: {} }, 400, /sectionId/);
    await s.expectRefused(
      'addSectionToGroup',
      'POST',
      `${url}/sections`,
      { token, body: { sectionId: other.sections[0].id } },
      400,
      /sectionId/,
    );
    await s.expectRefused(
      'addSectionToGroup',
      'POST',
      `${path}/section-groups/missing/sections`,
      { token, body: { sectionId: sections[0].id } },
      404,
    );
  });
});

describe('site spaces', () => {
  let t: Team;
  beforeAll(async () => {
    t = await s.team();
  });

  it('add (201): to the root of a site without sections, to the default section, or to a given section', async () => {
    const site = await s.site(t.owner, t.orgId);
    const a = await s.space(t.owner, 'Alpha');
    const b = await s.space(t.owner, 'Beta');
    const root = await s.siteSpace(t.creator, t.orgId, site.id, { spaceId: a.id });
    expect(root).toMatchObject({
      object: 'site-space',
      path: 'alpha',
      title: 'Alpha',
      default: true,
      hidden: false,
      hasAdvancedCustomizationFeature: false,
      urls: {},
    });
    expect(root.section).toBeUndefined();
    const { sections } = { sections: [await s.section(t.owner, t.orgId, site.id, { spaceId: b.id, title: 'Second' })] };
    const toDefault = await s.siteSpace(t.owner, t.orgId, site.id, { spaceId: b.id });
    const wrapper = (await s.ok('listSiteSections', 'GET', `${s.sitePath(t.orgId, site.id)}/sections`, { token: t.owner.token })).items[0];
    expect(toDefault.section).toBe(wrapper.id);
    const toGiven = await s.siteSpace(t.owner, t.orgId, site.id, { spaceId: a.id, sectionId: sections[0].id });
    expect(toGiven).toMatchObject({ section: sections[0].id, path: 'alpha', default: false });
  });

  it('list: structure order, the default filter, pages', async () => {
    const { site, sections, path } = await siteWithSections(t, 2);
    const extra = await s.siteSpace(t.owner, t.orgId, site.id, {
      spaceId: (await s.space(t.owner, 'Extra')).id,
      sectionId: sections[0].id,
    });
    const all = await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces`, { token: t.reader.token });
    expect(all.items.map((x: any) => x.id)).toEqual([sections[0].siteSpaces[0].id, extra.id, sections[1].siteSpaces[0].id]);
    const defaults = await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces?default=true`, { token: t.reader.token });
    expect(defaults.items.map((x: any) => x.id)).toEqual([sections[0].siteSpaces[0].id, sections[1].siteSpaces[0].id]);
    const others = await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces?default=false`, { token: t.reader.token });
    expect(others.items.map((x: any) => x.id)).toEqual([extra.id]);
    const page = await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces?limit=1`, { token: t.reader.token });
    expect(page).toMatchObject({ count: 3, next: { page: expect.any(String) } });
    await s.expectRefused('listSiteSpaces', 'GET', `${path}/site-spaces?default=perhaps`, { token: t.reader.token }, 400, /default/);
    await s.expectRefused('listSiteSpaces', 'GET', `${path}/site-spaces?shareKey=wrong`, { token: t.reader.token }, 400, /shareKey/);
  });

  it('a deleted space leaves the site until it is restored', async () => {
    const space = await s.space(t.owner, 'Fleeting');
    const site = await s.site(t.owner, t.orgId, { spaces: [space.id] });
    const path = s.sitePath(t.orgId, site.id);
    await h.rest('deleteSpaceById', 'DELETE', `/v1/spaces/${space.id}`, { token: t.owner.token });
    expect((await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces`, { token: t.owner.token })).items).toEqual([]);
    expect((await s.ok('getSiteById', 'GET', path, { token: t.owner.token })).siteSpaces).toBe(0);
    await h.rest('restoreSpace', 'POST', `/v1/spaces/${space.id}/restore`, { token: t.owner.token });
    expect((await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces`, { token: t.owner.token })).count).toBe(1);
  });

  it('add refuses bad input (400), a space twice in one section (409), unknown spaces (404), changing nothing', async () => {
    const { sections, path } = await siteWithSections(t, 1);
    const url = `${path}/site-spaces`;
    const token = t.owner.token;
    const other = await s.site(t.owner, t.orgId);
    const foreignSection = await s.section(t.owner, t.orgId, other.id, { spaceId: (await s.space(t.owner, 'F')).id });
    await s.expectRefused('addSpaceToSite', 'POST', url, { token, body: {} }, 400, /spaceId/);
    await s.expectRefused(
      'addSpaceToSite',
      'POST',
      url,
      { token, body: { spaceId: (await s.space(t.owner, 'N')).id, sectionId: foreignSection.id } },
      400,
      /sectionId/,
    );
    await s.expectRefused('addSpaceToSite', 'POST', url, { token, body: { spaceId: sections[0].siteSpaces[0].space.id } }, 409, /already/);
    await s.expectRefused('addSpaceToSite', 'POST', url, { token, body: { spaceId: 'missing' } }, 404);
  });

  it('update: path, condition (unset keeps, null removes), spaceId, hidden; conflicts 409; bad input 400', async () => {
    const { site, sections, path } = await siteWithSections(t, 1);
    const extra = await s.siteSpace(t.owner, t.orgId, site.id, {
      spaceId: (await s.space(t.owner, 'Extra')).id,
      sectionId: sections[0].id,
    });
    const url = `${path}/site-spaces/${extra.id}`;
    const target = await s.space(t.owner, 'Target');
    const updated = await s.ok('updateSiteSpaceById', 'PATCH', url, {
      token: t.creator.token,
      body: { path: 'v2', condition: '!visitor.claims.unsigned.legacy', spaceId: target.id, hidden: true },
    });
    expect(updated).toMatchObject({
      path: 'v2',
      condition: '!visitor.claims.unsigned.legacy',
      hidden: true,
      title: 'Target',
      space: { id: target.id },
    });
    expect((await s.ok('updateSiteSpaceById', 'PATCH', url, { token: t.owner.token, body: { hidden: false } })).condition).toBe(
      '!visitor.claims.unsigned.legacy',
    );
    expect(
      (await s.ok('updateSiteSpaceById', 'PATCH', url, { token: t.owner.token, body: { condition: null } })).condition,
    ).toBeUndefined();
    const token = t.owner.token;
    await s.expectRefused('updateSiteSpaceById', 'PATCH', url, { token, body: { path: sections[0].siteSpaces[0].path } }, 409, /path/);
    await s.expectRefused('updateSiteSpaceById', 'PATCH', url, { token, body: { condition: '(' } }, 400, /condition/);
    await s.expectRefused('updateSiteSpaceById', 'PATCH', url, { token, body: { path: 'x'.repeat(101) } }, 400, /path/);
    await s.expectRefused('updateSiteSpaceById', 'PATCH', url, { token, body: { hidden: null } }, 400, /hidden/);
    await s.expectRefused('updateSiteSpaceById', 'PATCH', url, { token, body: { spaceId: null } }, 400, /spaceId/);
    await s.expectRefused('updateSiteSpaceById', 'PATCH', url, { token, body: { spaceId: 'missing' } }, 404);
    await s.expectRefused('updateSiteSpaceById', 'PATCH', `${path}/site-spaces/missing`, { token, body: { hidden: true } }, 404);
  });

  it('delete answers 205, then 404', async () => {
    const { site, sections, path } = await siteWithSections(t, 1);
    const url = `${path}/site-spaces/${sections[0].siteSpaces[0].id}`;
    expect((await h.rest('deleteSiteSpaceById', 'DELETE', url, { token: t.creator.token })).status).toBe(205);
    await s.expectRefused('deleteSiteSpaceById', 'DELETE', url, { token: t.owner.token }, 404, /^Site space not found$/);
    expect(await s.siteSpaceIds(t.owner.token, t.orgId, site.id)).toEqual([]);
  });
});

describe('moving site spaces', () => {
  let t: Team;
  beforeAll(async () => {
    t = await s.team();
  });
  const before = (id: string) => ({ position: { before: { type: 'site-space', siteSpace: id } } });
  const after = (id: string) => ({ position: { after: { type: 'site-space', siteSpace: id } } });

  async function rootSite(n: number) {
    const spaces = [];
    for (let i = 0; i < n; i++) spaces.push((await s.space(t.owner, `Root ${i}`)).id);
    const site = await s.site(t.owner, t.orgId, { spaces });
    return { site, path: s.sitePath(t.orgId, site.id), ids: await s.siteSpaceIds(t.owner.token, t.orgId, site.id) };
  }

  it('moves before / after another site space and to the end', async () => {
    const { site, path, ids } = await rootSite(4);
    const [a, b, c, d] = ids;
    await s.ok('moveSiteSpace', 'POST', `${path}/site-spaces/${d}/move`, { token: t.creator.token, body: before(a!) });
    expect(await s.siteSpaceIds(t.owner.token, t.orgId, site.id)).toEqual([d, a, b, c]);
    await s.ok('moveSiteSpace', 'POST', `${path}/site-spaces/${a}/move`, { token: t.owner.token, body: after(c!) });
    expect(await s.siteSpaceIds(t.owner.token, t.orgId, site.id)).toEqual([d, b, c, a]);
    await s.ok('moveSiteSpace', 'POST', `${path}/site-spaces/${d}/move`, { token: t.owner.token });
    expect(await s.siteSpaceIds(t.owner.token, t.orgId, site.id)).toEqual([b, c, a, d]);
  });

  it('into another section: it joins it (its path made unique there) and leaves its old section', async () => {
    const space = await s.space(t.owner, 'Same');
    const site = await s.site(t.owner, t.orgId);
    const one = await s.section(t.owner, t.orgId, site.id, { spaceId: space.id, title: 'One' });
    const two = await s.section(t.owner, t.orgId, site.id, { spaceId: space.id, title: 'Two' });
    const path = s.sitePath(t.orgId, site.id);
    const moved = await s.ok('moveSiteSpace', 'POST', `${path}/site-spaces/${one.siteSpaces[0].id}/move`, {
      token: t.owner.token,
      body: after(two.siteSpaces[0].id),
    });
    expect(moved).toMatchObject({ section: two.id, path: 'same-2', default: false });
    const sections = (await s.ok('listSiteSections', 'GET', `${path}/sections`, { token: t.owner.token })).items;
    expect(sections.map((x: any) => x.siteSpaces.map((ss: any) => ss.id))).toEqual([[], [two.siteSpaces[0].id, one.siteSpaces[0].id]]);
  });

  it('edge cases: before itself 400, after a missing id 400, a site space of another site 400, no such site space 404', async () => {
    const { path, ids } = await rootSite(2);
    const other = await rootSite(1);
    const url = `${path}/site-spaces/${ids[0]}/move`;
    const token = t.owner.token;
    await s.expectRefused('moveSiteSpace', 'POST', url, { token, body: before(ids[0]!) }, 400, /cannot be the site space/);
    await s.expectRefused(
      'moveSiteSpace',
      'POST',
      url,
      { token, body: after('missing') },
      400,
      /position\.after\.siteSpace: is not a site space of this site/,
    );
    await s.expectRefused('moveSiteSpace', 'POST', url, { token, body: before(other.ids[0]!) }, 400, /is not a site space of this site/);
    await s.expectRefused(
      'moveSiteSpace',
      'POST',
      url,
      { token, body: { position: { after: { type: 'site-section', siteSpace: ids[1] } } } },
      400,
      /type/,
    );
    await s.expectRefused('moveSiteSpace', 'POST', `${path}/site-spaces/missing/move`, { token, body: {} }, 404);
    await s.expectRefused('moveSiteSpace', 'POST', `${path}/site-spaces/${other.ids[0]}/move`, { token, body: before(ids[0]!) }, 404);
  });

  it('concurrent moves never lose a site space', async () => {
    const { site, path, ids } = await rootSite(10);
    const results = await Promise.all(
      ids
        .slice(1)
        .map((id, i) =>
          h.call('POST', `${path}/site-spaces/${id}/move`, { token: t.owner.token, body: i % 2 ? before(ids[0]!) : after(ids[0]!) }),
        ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const order = await s.siteSpaceIds(t.owner.token, t.orgId, site.id);
    expect([...order].sort()).toEqual([...ids].sort());
    const rows = await h.db.prisma.siteSpace.findMany({ where: { siteId: site.id } });
    expect(new Set(rows.map((r) => r.position)).size).toBe(10);
  });
});

describe('rights on every site route', () => {
  let t: Team;
  let ids: Record<string, string>;
  beforeAll(async () => {
    t = await s.team();
    const a = await s.space(t.owner, 'A');
    const site = await s.site(t.owner, t.orgId, { spaces: [a.id] });
    const section = await s.section(t.owner, t.orgId, site.id, { spaceId: a.id });
    const group = await s.group(t.owner, t.orgId, site.id, { title: 'G', sections: [section.id] });
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'x' } },
      201,
    );
    await s.ok('updateSiteAdaptiveSchema', 'PUT', `${s.sitePath(t.orgId, site.id)}/adaptive-schema`, {
      token: t.owner.token,
      body: { jsonSchema: { type: 'object', additionalProperties: false, properties: { beta: { type: 'boolean', description: 'Beta' } } } },
    });
    const b = await s.space(t.owner, 'B');
    ids = {
      site: site.id,
      section: section.id,
      group: group.id,
      siteSpace: section.siteSpaces[0].id,
      link: link.id,
      space: a.id,
      other: b.id,
    };
  });

  const routes = () => {
    const site = s.sitePath(t.orgId, ids.site!);
    return {
      reads: [
        ['listSites', 'GET', `/v1/orgs/${t.orgId}/sites`],
        ['getSiteById', 'GET', site],
        ['getSiteStructure', 'GET', `${site}/structure`],
        ['getSiteAdaptiveSchema', 'GET', `${site}/adaptive-schema`],
        ['listSiteAdaptiveTemplateConditions', 'GET', `${site}/adaptive-schema/template-conditions`],
        ['listSiteSections', 'GET', `${site}/sections`],
        ['listSiteSectionGroups', 'GET', `${site}/section-groups`],
        ['listSiteSpaces', 'GET', `${site}/site-spaces`],
        ['listSiteShareLinks', 'GET', `${site}/share-links`],
      ] as const,
      writes: [
        ['createSite', 'POST', `/v1/orgs/${t.orgId}/sites`, {}],
        ['updateSiteById', 'PATCH', site, { title: 'Changed' }],
        ['publishSite', 'POST', `${site}/publish`, undefined],
        ['unpublishSite', 'POST', `${site}/unpublish`, undefined],
        [
          'updateSiteAdaptiveSchema',
          'PUT',
          `${site}/adaptive-schema`,
          { jsonSchema: { type: 'object', additionalProperties: false, properties: {} } },
        ],
        ['addSectionToSite', 'POST', `${site}/sections`, { spaceId: ids.space }],
        ['updateSiteSectionById', 'PATCH', `${site}/sections/${ids.section}`, { title: 'Changed' }],
        ['moveSiteSection', 'POST', `${site}/sections/${ids.section}/move`, {}],
        ['addSectionGroupToSite', 'POST', `${site}/section-groups`, { title: 'New' }],
        ['updateSiteSectionGroupById', 'PATCH', `${site}/section-groups/${ids.group}`, { title: 'Changed' }],
        ['addSectionToGroup', 'POST', `${site}/section-groups/${ids.group}/sections`, { sectionId: ids.section }],
        ['moveSiteSectionGroup', 'POST', `${site}/section-groups/${ids.group}/move`, {}],
        ['addSpaceToSite', 'POST', `${site}/site-spaces`, { spaceId: ids.other }],
        ['updateSiteSpaceById', 'PATCH', `${site}/site-spaces/${ids.siteSpace}`, { hidden: true }],
        ['moveSiteSpace', 'POST', `${site}/site-spaces/${ids.siteSpace}/move`, {}],
        ['createSiteShareLink', 'POST', `${site}/share-links`, { name: 'n' }],
        ['updateSiteShareLinkById', 'PATCH', `${site}/share-links/${ids.link}`, { active: false }],
        ['removeSectionFromGroup', 'DELETE', `${site}/section-groups/${ids.group}/sections/${ids.section}`, undefined],
        ['deleteSiteShareLinkById', 'DELETE', `${site}/share-links/${ids.link}`, undefined],
        ['deleteSiteSpaceById', 'DELETE', `${site}/site-spaces/${ids.siteSpace}`, undefined],
        ['deleteSiteSectionGroupById', 'DELETE', `${site}/section-groups/${ids.group}`, undefined],
        ['deleteSiteSectionById', 'DELETE', `${site}/sections/${ids.section}`, undefined],
        ['deleteSiteById', 'DELETE', site, undefined],
      ] as const,
    };
  };

  it('reads: members (guests too) 200; no token 401; outsiders 404', async () => {
    for (const [operationId, method, path] of routes().reads) {
      for (const who of [t.reader, t.guest])
        expect((await h.rest(operationId, method, path, { token: who.token })).status, operationId).toBe(200);
      await s.expectRefused(operationId, method, path, { token: null }, 401);
      await s.expectRefused(operationId, method, path, { token: t.outsider.token }, 404);
    }
  });

  it('writes: no token 401, outsiders 404, readers and guests 403 — nothing changes', async () => {
    for (const [operationId, method, path, body] of routes().writes) {
      await s.expectRefused(operationId, method, path, { token: null, body }, 401);
      await s.expectRefused(operationId, method, path, { token: t.outsider.token, body }, 404);
      await s.expectRefused(operationId, method, path, { token: t.reader.token, body }, 403);
      await s.expectRefused(operationId, method, path, { token: t.guest.token, body }, 403);
    }
  });

  it('writes: the create role may do each of them (in this order)', async () => {
    for (const [operationId, method, path, body] of routes().writes) {
      const res = await h.rest(operationId, method, path, { token: t.creator.token, body });
      expect(res.status, `${operationId}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      if (method === 'DELETE') expect(res.status, operationId).toBe(205);
    }
  });
});
