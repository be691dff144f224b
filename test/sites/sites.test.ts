import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness } from '../support/harness.js';
import { siteHelpers } from '../support/sites.js';
import { proveHostname } from '../support/dns-server.js';

/**
 * Docs sites: the site routes (list, create, get, update, delete, publish, unpublish), the
 * published profile (visibility × share key × published), the adaptive schema and the share links.
 * Every route three ways: it works and matches the official schema; bad input is refused with the
 * right status and changes nothing; a caller without rights is refused (see also the rights table
 * at the end, which covers every site route).
 */

let h: Harness;
const s = siteHelpers(() => h);
beforeAll(async () => {
  h = await setupHarness();
});

type Team = Awaited<ReturnType<typeof s.team>>;

describe('POST /orgs/:organizationId/sites (createSite)', () => {
  let t: Team;
  beforeAll(async () => {
    t = await s.team();
  });

  it('creates an unpublished basic site (201) with its spaces as root site spaces, in order', async () => {
    const a = await s.space(t.owner, 'Getting started');
    const b = await s.space(t.owner, 'API reference');
    const site = await s.site(t.owner, t.orgId, { title: 'Product docs', visibility: 'unlisted', spaces: [a.id, b.id] });
    expect(site).toEqual({
      object: 'site',
      id: expect.any(String),
      type: 'basic',
      appliedType: 'basic',
      title: 'Product docs',
      visibility: 'unlisted',
      published: false,
      defaultLevel: 'inherit',
      siteSpaces: 2,
      createdAt: expect.any(String),
      adaptiveContent: { enabled: false },
      agentsContext: 'included',
      features: [],
      // The caller's rights: the owner is an organization admin.
      permissions: {
        view: true,
        access: true,
        edit: true,
        create: true,
        admin: true,
        installIntegration: true,
        viewAdaptiveSchema: true,
        editAdaptiveSchema: true,
      },
      urls: {
        location: `${h.config.publicUrl}/v1/orgs/${t.orgId}/sites/${site.id}`,
        app: expect.stringContaining(site.id),
        preview: `${h.config.publicUrl}/app/o/${t.orgId}/sites/${site.id}/preview`,
      },
    });
    const got = await s.ok('getSiteById', 'GET', s.sitePath(t.orgId, site.id), { token: t.reader.token });
    // A reader reads the site and changes nothing in it; a creator changes it, but installs nothing.
    const readOnly = {
      view: true,
      access: true,
      edit: false,
      create: false,
      admin: false,
      installIntegration: false,
      viewAdaptiveSchema: true,
      editAdaptiveSchema: false,
    };
    expect(got).toEqual({ ...site, permissions: readOnly });
    expect((await s.ok('getSiteById', 'GET', s.sitePath(t.orgId, site.id), { token: t.creator.token })).permissions).toEqual({
      ...readOnly,
      edit: true,
      create: true,
      admin: true,
      editAdaptiveSchema: true,
    });
    const spaces = await s.ok('listSiteSpaces', 'GET', `${s.sitePath(t.orgId, site.id)}/site-spaces`, { token: t.owner.token });
    expect(spaces.items.map((ss: any) => [ss.space.id, ss.path, ss.default, ss.section])).toEqual([
      [a.id, 'getting-started', true, undefined],
      [b.id, 'api-reference', false, undefined],
    ]);
    const structure = await s.ok('getSiteStructure', 'GET', `${s.sitePath(t.orgId, site.id)}/structure`, { token: t.owner.token });
    expect(structure.type).toBe('siteSpaces');
    expect(structure.structure.map((ss: any) => ss.space.id)).toEqual([a.id, b.id]);
  });

  it('defaults: type basic, visibility public, a title; a member with the create role may create', async () => {
    const res = await h.rest('createSite', 'POST', `/v1/orgs/${t.orgId}/sites`, { token: t.creator.token });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'basic', visibility: 'public', published: false, siteSpaces: 0, title: expect.any(String) });
    const premium = await s.site(t.owner, t.orgId, { type: 'legacy-premium', visibility: 'share-link' });
    expect(premium).toMatchObject({ type: 'legacy-premium', visibility: 'share-link' });
  });

  it('refuses bad input with 400 naming the field, changing nothing', async () => {
    const path = `/v1/orgs/${t.orgId}/sites`;
    const token = t.owner.token;
    await s.expectRefused('createSite', 'POST', path, { token, body: { title: 'x' } }, 400, /title/);
    await s.expectRefused('createSite', 'POST', path, { token, body: { title: 'x'.repeat(129) } }, 400, /title/);
    await s.expectRefused('createSite', 'POST', path, { token, body: { type: 'gold' } }, 400, /type/);
    await s.expectRefused('createSite', 'POST', path, { token, body: { visibility: 'private' } }, 400, /visibility/);
    await s.expectRefused('createSite', 'POST', path, { token, body: { title: 'Docs', colour: 'red' } }, 400, /colour/);
    await s.expectRefused('createSite', 'POST', path, { token, rawBody: '{"title":' }, 400, /body/);
    const a = await s.space(t.owner, 'A');
    await s.expectRefused('createSite', 'POST', path, { token, body: { spaces: [a.id, a.id] } }, 400, /spaces\[1\]/);
    await s.expectRefused('createSite', 'POST', path, { token, body: { spaces: ['nope'] } }, 404, /Space/);
  });

  it('refuses a space of another organization (400) and a space the caller cannot see (404)', async () => {
    const other = await h.owner('Other');
    await h.addMember(other.orgId, t.owner.id, 'admin');
    const foreign = await s.space(other as any, 'Foreign');
    await s.expectRefused(
      'createSite',
      'POST',
      `/v1/orgs/${t.orgId}/sites`,
      { token: t.owner.token, body: { spaces: [foreign.id] } },
      400,
      /spaces\[0\].*another organization/,
    );
    const hidden = await s.space(other as any, 'Hidden');
    await h.addMember(other.orgId, t.creator.id, 'create');
    await h.db.prisma.space.update({ where: { id: hidden.id }, data: { defaultLevel: null } });
    await s.expectRefused(
      'createSite',
      'POST',
      `/v1/orgs/${other.orgId}/sites`,
      { token: t.creator.token, body: { spaces: [hidden.id] } },
      404,
    );
  });

  it('refuses callers without rights: no token 401, outsider 404, reader and guest 403', async () => {
    const path = `/v1/orgs/${t.orgId}/sites`;
    await s.expectRefused('createSite', 'POST', path, { token: null, body: {} }, 401);
    await s.expectRefused('createSite', 'POST', path, { token: t.outsider.token, body: {} }, 404);
    await s.expectRefused('createSite', 'POST', path, { token: t.reader.token, body: {} }, 403);
    await s.expectRefused('createSite', 'POST', path, { token: t.guest.token, body: {} }, 403);
  });
});

describe('GET /orgs/:organizationId/sites (listSites)', () => {
  let t: Team;
  let docs: any, api: any, blog: any, spaceId: string;
  beforeAll(async () => {
    t = await s.team();
    spaceId = (await s.space(t.owner, 'Shared')).id;
    docs = await s.site(t.owner, t.orgId, { title: 'Product Docs', spaces: [spaceId] });
    api = await s.site(t.owner, t.orgId, { title: 'API', type: 'premium' });
    blog = await s.site(t.owner, t.orgId, { title: 'Blog docs' });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, api.id)}/publish`, { token: t.owner.token });
  });

  const list = async (query = '', token = t.reader.token) => s.ok('listSites', 'GET', `/v1/orgs/${t.orgId}/sites${query}`, { token });

  it('lists every site, oldest first, for any member (guests too)', async () => {
    const all = await list();
    expect(all.items.map((x: any) => x.id)).toEqual([docs.id, api.id, blog.id]);
    expect(all.count).toBe(3);
    expect(all.next).toBeUndefined();
    expect((await list('', t.guest.token)).count).toBe(3);
  });

  it('filters by space, title (case-insensitive substring), published status and type', async () => {
    expect((await list(`?space=${spaceId}`)).items.map((x: any) => x.id)).toEqual([docs.id]);
    expect((await list('?title=docs')).items.map((x: any) => x.id)).toEqual([docs.id, blog.id]);
    expect((await list('?published=true')).items.map((x: any) => x.id)).toEqual([api.id]);
    expect((await list('?published=false')).items.map((x: any) => x.id)).toEqual([docs.id, blog.id]);
    expect((await list('?type=premium')).items.map((x: any) => x.id)).toEqual([api.id]);
    expect((await list('?type=premium&type=basic')).count).toBe(3);
    expect((await list('?title=nothing')).items).toEqual([]);
  });

  it('pages with limit and an opaque cursor', async () => {
    const first = await list('?limit=2');
    expect(first.items).toHaveLength(2);
    expect(first.count).toBe(3);
    const second = await list(`?limit=2&page=${encodeURIComponent(first.next.page)}`);
    expect(second.items.map((x: any) => x.id)).toEqual([blog.id]);
    expect(second.next).toBeUndefined();
  });

  it('refuses bad query parameters with 400', async () => {
    const path = `/v1/orgs/${t.orgId}/sites`;
    await s.expectRefused('listSites', 'GET', `${path}?limit=0`, { token: t.owner.token }, 400, /limit/);
    await s.expectRefused('listSites', 'GET', `${path}?published=maybe`, { token: t.owner.token }, 400, /published/);
    await s.expectRefused('listSites', 'GET', `${path}?type=gold`, { token: t.owner.token }, 400, /type/);
    await s.expectRefused('listSites', 'GET', `${path}?page=garbage`, { token: t.owner.token }, 400, /page/);
  });

  it('refuses no token (401) and outsiders (404)', async () => {
    await s.expectRefused('listSites', 'GET', `/v1/orgs/${t.orgId}/sites`, { token: null }, 401);
    await s.expectRefused('listSites', 'GET', `/v1/orgs/${t.orgId}/sites`, { token: t.outsider.token }, 404);
  });
});

describe('GET, PATCH, DELETE /orgs/:organizationId/sites/:siteId', () => {
  let t: Team;
  beforeAll(async () => {
    t = await s.team();
  });

  it('GET answers 404 for a missing site and for a site of another organization', async () => {
    await s.expectRefused('getSiteById', 'GET', s.sitePath(t.orgId, 'missing'), { token: t.owner.token }, 404);
    const other = await h.owner('Other');
    await h.addMember(other.orgId, t.owner.id, 'admin');
    const foreign = await s.site(other, other.orgId);
    await s.expectRefused('getSiteById', 'GET', s.sitePath(t.orgId, foreign.id), { token: t.owner.token }, 404);
    await s.expectRefused('getSiteById', 'GET', s.sitePath(other.orgId, foreign.id), { token: t.reader.token }, 404);
  });

  it('PATCH updates title, visibility, basename, adaptive content, agents context, hostname and proxy', async () => {
    const site = await s.site(t.owner, t.orgId);
    // A custom hostname takes effect once its ownership is proven.
    await proveHostname(h, t.creator.token, s.sitePath(t.orgId, site.id), 'docs.example.com');
    const updated = await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, site.id), {
      token: t.creator.token,
      body: {
        title: 'New title',
        visibility: 'share-link',
        basename: 'api',
        adaptiveContent: { enabled: true },
        agentsContext: 'excluded',
        proxy: 'example.com/docs/v2',
        hostname: 'docs.example.com',
      },
    });
    expect(updated).toMatchObject({
      title: 'New title',
      visibility: 'share-link',
      basename: 'api',
      adaptiveContent: { enabled: true },
      agentsContext: 'excluded',
      proxy: { origin: 'example.com/docs/v2', target: `${h.config.publicUrl}/public/${t.orgId}/sites/api` },
      hostname: 'docs.example.com',
    });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    const published = await s.ok('getSiteById', 'GET', s.sitePath(t.orgId, site.id), { token: t.owner.token });
    expect(published.urls.published).toBe('https://example.com/docs/v2');
    const cleared = await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, site.id), {
      token: t.owner.token,
      body: { proxy: null, hostname: null },
    });
    expect(cleared.proxy).toBeUndefined();
    expect(cleared.hostname).toBeUndefined();
    expect(cleared.urls.published).toBe(`${h.config.publicUrl}/public/${t.orgId}/sites/api`);
    // Unset fields keep their value.
    expect((await s.ok('updateSiteById', 'PATCH', s.sitePath(t.orgId, site.id), { token: t.owner.token, body: {} })).title).toBe(
      'New title',
    );
  });

  it('PATCH sets the default site space (root) and the default section', async () => {
    const a = await s.space(t.owner, 'A');
    const b = await s.space(t.owner, 'B');
    const site = await s.site(t.owner, t.orgId, { spaces: [a.id, b.id] });
    const path = s.sitePath(t.orgId, site.id);
    const [, ssB] = (await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces`, { token: t.owner.token })).items;
    await s.ok('updateSiteById', 'PATCH', path, { token: t.owner.token, body: { defaultSiteSpace: ssB.id } });
    const defaults = await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces?default=true`, { token: t.owner.token });
    expect(defaults.items.map((x: any) => x.id)).toEqual([ssB.id]);
    expect(
      (await s.ok('listSiteSpaces', 'GET', `${path}/site-spaces?default=false`, { token: t.owner.token })).items.map(
        (x: any) => x.space.id,
      ),
    ).toEqual([a.id]);

    // With sections: the default section, then a default site space inside it.
    const s1 = await s.section(t.owner, t.orgId, site.id, { spaceId: a.id, title: 'One' });
    const wrapper = (await s.ok('listSiteSections', 'GET', `${path}/sections`, { token: t.owner.token })).items[0];
    expect(wrapper.default).toBe(true);
    expect(wrapper.siteSpaces.map((x: any) => [x.id, x.default])).toEqual([
      [expect.any(String), false],
      [ssB.id, true],
    ]);
    await s.ok('updateSiteById', 'PATCH', path, { token: t.owner.token, body: { defaultSiteSection: s1.id } });
    const ssInS1 = s1.siteSpaces[0].id;
    await s.ok('updateSiteById', 'PATCH', path, { token: t.owner.token, body: { defaultSiteSpace: ssInS1 } });
    const sections = (await s.ok('listSiteSections', 'GET', `${path}/sections`, { token: t.owner.token })).items;
    expect(sections.map((x: any) => [x.id, x.default])).toEqual([
      [wrapper.id, false],
      [s1.id, true],
    ]);
    expect(sections[1].urls).toEqual({});
    await s.expectRefused(
      'updateSiteById',
      'PATCH',
      path,
      { token: t.owner.token, body: { defaultSiteSpace: ssB.id } },
      400,
      /defaultSiteSpace/,
    );
    await s.expectRefused(
      'updateSiteById',
      'PATCH',
      path,
      { token: t.owner.token, body: { defaultSiteSection: 'nope' } },
      400,
      /defaultSiteSection/,
    );
  });

  it('PATCH refuses bad input with 400 (or 409 for a hostname in use), changing nothing', async () => {
    const site = await s.site(t.owner, t.orgId);
    const path = s.sitePath(t.orgId, site.id);
    const token = t.owner.token;
    for (const [body, field] of [
      [{ title: 'x' }, /title/],
      [{ title: null }, /title/],
      [{ visibility: 'private' }, /visibility/],
      [{ visibility: null }, /visibility/],
      [{ basename: '' }, /basename/],
      [{ basename: 'a/b' }, /basename/],
      [{ proxy: 'https://example.com/docs' }, /proxy/],
      [{ proxy: 'example.com' }, /proxy/],
      [{ hostname: 'example.com' }, /hostname/],
      [{ hostname: 'Docs.Example.com' }, /hostname/],
      [{ adaptiveContent: {} }, /enabled/],
      [{ agentsContext: 'maybe' }, /agentsContext/],
      [{ defaultSiteSpace: 'nope' }, /defaultSiteSpace/],
      [{ unknown: 1 }, /unknown/],
    ] as const) {
      await s.expectRefused('updateSiteById', 'PATCH', path, { token, body }, 400, field);
    }
    const other = await s.site(t.owner, t.orgId);
    await proveHostname(h, token, s.sitePath(t.orgId, other.id), 'docs.acme.com');
    await s.expectRefused('updateSiteById', 'PATCH', path, { token, body: { hostname: 'docs.acme.com' } }, 409, /hostname/);
  });

  it('PATCH refuses no token 401, outsider 404, reader 403, and a missing site 404', async () => {
    const site = await s.site(t.owner, t.orgId);
    const path = s.sitePath(t.orgId, site.id);
    await s.expectRefused('updateSiteById', 'PATCH', path, { token: null, body: { title: 'Hi there' } }, 401);
    await s.expectRefused('updateSiteById', 'PATCH', path, { token: t.outsider.token, body: { title: 'Hi there' } }, 404);
    await s.expectRefused('updateSiteById', 'PATCH', path, { token: t.reader.token, body: { title: 'Hi there' } }, 403);
    await s.expectRefused(
      'updateSiteById',
      'PATCH',
      s.sitePath(t.orgId, 'missing'),
      { token: t.owner.token, body: { title: 'Hi there' } },
      404,
    );
  });

  it('DELETE answers 205 and removes the site with its structure and share links; 404 when there is nothing', async () => {
    const a = await s.space(t.owner, 'A');
    const site = await s.site(t.owner, t.orgId, { spaces: [a.id] });
    const path = s.sitePath(t.orgId, site.id);
    await s.section(t.owner, t.orgId, site.id, { spaceId: a.id });
    await s.ok('createSiteShareLink', 'POST', `${path}/share-links`, { token: t.owner.token, body: { name: 'x' } }, 201);
    const res = await h.rest('deleteSiteById', 'DELETE', path, { token: t.creator.token });
    expect(res.status).toBe(205);
    expect(res.body).toBeUndefined();
    expect(await h.db.prisma.siteSection.count({ where: { siteId: site.id } })).toBe(0);
    expect(await h.db.prisma.siteSpace.count({ where: { siteId: site.id } })).toBe(0);
    expect(await h.db.prisma.siteShareLink.count({ where: { siteId: site.id } })).toBe(0);
    expect(await h.db.prisma.space.count({ where: { id: a.id } })).toBe(1);
    await s.expectRefused('deleteSiteById', 'DELETE', path, { token: t.owner.token }, 404, /^Site not found$/);
    await s.expectRefused('getSiteById', 'GET', path, { token: t.owner.token }, 404);
  });

  it('DELETE refuses no token 401, outsider 404, reader 403; a site of another organization is not deleted (the 404 of a missing one)', async () => {
    const site = await s.site(t.owner, t.orgId);
    const path = s.sitePath(t.orgId, site.id);
    await s.expectRefused('deleteSiteById', 'DELETE', path, { token: null }, 401);
    await s.expectRefused('deleteSiteById', 'DELETE', path, { token: t.outsider.token }, 404);
    await s.expectRefused('deleteSiteById', 'DELETE', path, { token: t.reader.token }, 403);
    const other = await h.owner('Other');
    const foreign = await s.expectRefused('deleteSiteById', 'DELETE', s.sitePath(other.orgId, site.id), { token: other.token }, 404);
    const missing = await s.expectRefused(
      'deleteSiteById',
      'DELETE',
      s.sitePath(other.orgId, 'never-existed'),
      { token: other.token },
      404,
    );
    expect(foreign.body).toEqual(missing.body);
  });
});

describe('POST .../publish and .../unpublish', () => {
  it('publish sets published (the site gains its published URL), unpublish is the reverse move; both idempotent', async () => {
    const t = await s.team();
    const site = await s.site(t.owner, t.orgId);
    const path = s.sitePath(t.orgId, site.id);
    const published = await s.ok('publishSite', 'POST', `${path}/publish`, { token: t.creator.token });
    expect(published.published).toBe(true);
    expect(published.urls.published).toBe(`${h.config.publicUrl}/public/${t.orgId}/sites/${site.id}`);
    expect((await s.ok('publishSite', 'POST', `${path}/publish`, { token: t.owner.token })).published).toBe(true);
    const unpublished = await s.ok('unpublishSite', 'POST', `${path}/unpublish`, { token: t.owner.token });
    expect(unpublished.published).toBe(false);
    expect(unpublished.urls.published).toBeUndefined();
    expect((await s.ok('unpublishSite', 'POST', `${path}/unpublish`, { token: t.owner.token })).published).toBe(false);
  });

  it('refuses no token 401, outsider 404, reader 403, missing site 404', async () => {
    const t = await s.team();
    const site = await s.site(t.owner, t.orgId);
    for (const op of ['publish', 'unpublish'] as const) {
      const id = op === 'publish' ? 'publishSite' : 'unpublishSite';
      const path = `${s.sitePath(t.orgId, site.id)}/${op}`;
      await s.expectRefused(id, 'POST', path, { token: null }, 401);
      await s.expectRefused(id, 'POST', path, { token: t.outsider.token }, 404);
      await s.expectRefused(id, 'POST', path, { token: t.reader.token }, 403);
      await s.expectRefused(id, 'POST', `${s.sitePath(t.orgId, 'missing')}/${op}`, { token: t.owner.token }, 404);
    }
  });
});

describe('GET .../published (getPublishedContentSite)', () => {
  let t: Team;
  let keys: { active: string; inactive: string; otherSite: string };
  const sites: Record<string, { id: string }> = {};
  const VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;

  beforeAll(async () => {
    t = await s.team();
    const space = await s.space(t.owner, 'Guide');
    for (const visibility of VISIBILITIES) {
      for (const published of [true, false]) {
        const site = await s.site(t.owner, t.orgId, { visibility, spaces: [space.id], title: `${visibility} ${published}` });
        if (published) await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
        sites[`${visibility}:${published}`] = site;
      }
    }
    const keyOf = async (siteId: string) => {
      const link = await s.ok(
        'createSiteShareLink',
        'POST',
        `${s.sitePath(t.orgId, siteId)}/share-links`,
        { token: t.owner.token, body: { name: 'k' } },
        201,
      );
      return { id: link.id, key: new URL(link.urls.published).searchParams.get('share')! };
    };
    // Every site gets an active key (the matrix uses the one of its own site).
    const active: Record<string, string> = {};
    for (const [k, site] of Object.entries(sites)) active[k] = (await keyOf(site.id)).key;
    const inactive = await keyOf(sites['share-link:true']!.id);
    await s.ok('updateSiteShareLinkById', 'PATCH', `${s.sitePath(t.orgId, sites['share-link:true']!.id)}/share-links/${inactive.id}`, {
      token: t.owner.token,
      body: { active: false },
    });
    keys = { active: active['share-link:true']!, inactive: inactive.key, otherSite: active['public:true']! };
    (keys as any).all = active;
  });

  const get = (siteId: string, token: string | null, shareKey?: string) =>
    h.rest(
      'getPublishedContentSite',
      'GET',
      `${s.sitePath(t.orgId, siteId)}/published${shareKey ? `?shareKey=${encodeURIComponent(shareKey)}` : ''}`,
      { token },
    );

  it('answers the profile: site, structure, customizations, scripts (official schema)', async () => {
    const res = await get(sites['public:true']!.id, t.outsider.token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'published-content-site',
      site: { id: sites['public:true']!.id, published: true, visibility: 'public' },
      structure: { type: 'siteSpaces', structure: [{ object: 'site-space', default: true, space: { title: 'Guide' } }] },
      customizations: { site: { title: 'public true' } },
      scripts: [],
    });
    const ssId = res.body.structure.structure[0].id;
    expect(Object.keys(res.body.customizations.siteSpaces)).toEqual([ssId]);
    expect(res.body.structure.structure[0].urls.published).toBe(res.body.site.urls.published);
  });

  // Who sees what: the visibility × who is asking × which key × published matrix.
  const callers = [
    'member',
    'guest',
    'outsider',
    'outsider+key',
    'outsider+inactive key',
    "outsider+another site's key",
    'no token',
  ] as const;
  const expected = (visibility: (typeof VISIBILITIES)[number], published: boolean, caller: (typeof callers)[number]) => {
    if (caller === 'no token') return 401;
    if (!published) return 404;
    if (visibility === 'public' || visibility === 'unlisted') return 200;
    if (caller === 'member' || caller === 'guest') return 200;
    if (visibility === 'share-link' && caller === 'outsider+key') return 200;
    return 404;
  };
  for (const visibility of VISIBILITIES) {
    for (const published of [true, false]) {
      it(`${visibility}, ${published ? 'published' : 'unpublished'}: ${callers.map((c) => `${c} ${expected(visibility, published, c)}`).join(', ')}`, async () => {
        const site = sites[`${visibility}:${published}`]!;
        const own = (keys as any).all[`${visibility}:${published}`] as string;
        for (const caller of callers) {
          const token =
            caller === 'no token' ? null : caller === 'member' ? t.reader.token : caller === 'guest' ? t.guest.token : t.outsider.token;
          const key =
            caller === 'outsider+key'
              ? own
              : caller === 'outsider+inactive key'
                ? keys.inactive
                : caller === "outsider+another site's key"
                  ? keys.otherSite
                  : undefined;
          // The inactive key belongs to the published share-link site; elsewhere it is simply unknown there.
          const res =
            caller === 'no token'
              ? await h.call('GET', `${s.sitePath(t.orgId, site.id)}/published`, { token: null })
              : await get(site.id, token, key);
          expect(res.status, `${caller}: ${JSON.stringify(res.body)}`).toBe(expected(visibility, published, caller));
          if (res.status === 200) expect(res.body.site.id).toBe(site.id);
        }
      });
    }
  }

  it('a share key that opens the site rides along in the published URLs of its structure', async () => {
    const res = await get(sites['share-link:true']!.id, t.outsider.token, keys.active);
    expect(res.status).toBe(200);
    expect(res.body.site.urls.published).toMatch(new RegExp(`\\?share=${keys.active}$`));
    expect(res.body.structure.structure[0].urls.published).toBe(res.body.site.urls.published);
    // Without the key (a member asking) the URLs carry none.
    const plain = await get(sites['share-link:true']!.id, t.reader.token);
    expect(plain.body.site.urls.published).not.toContain('share=');
  });

  it('a deleted share link stops opening the site', async () => {
    const site = sites['share-link:true']!;
    const link = await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'temp' } },
      201,
    );
    const key = new URL(link.urls.published).searchParams.get('share')!;
    expect((await get(site.id, t.outsider.token, key)).status).toBe(200);
    await h.rest('deleteSiteShareLinkById', 'DELETE', `${s.sitePath(t.orgId, site.id)}/share-links/${link.id}`, { token: t.owner.token });
    expect((await get(site.id, t.outsider.token, key)).status).toBe(404);
  });

  it('answers 404 for a missing site and for a site under another organization', async () => {
    expect((await get('missing', t.owner.token)).status).toBe(404);
    const other = await h.owner('Elsewhere');
    const res = await h.rest('getPublishedContentSite', 'GET', `/v1/orgs/${other.orgId}/sites/${sites['public:true']!.id}/published`, {
      token: other.token,
    });
    expect(res.status).toBe(404);
  });
});

describe('adaptive schema', () => {
  let t: Team;
  let path: string;
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    additionalProperties: false,
    properties: {
      isBetaUser: { type: 'boolean', description: 'Whether the visitor is a beta user.' },
      unsigned: {
        type: 'object',
        description: 'Unsigned claims of the site visitor.',
        additionalProperties: false,
        properties: { prefersDark: { type: 'boolean', description: 'Dark mode fan' } },
      },
    },
  };
  beforeAll(async () => {
    t = await s.team();
    path = `${s.sitePath(t.orgId, (await s.site(t.owner, t.orgId)).id)}/adaptive-schema`;
  });

  it('GET answers 404 before any schema is set, and template conditions are empty', async () => {
    await s.expectRefused('getSiteAdaptiveSchema', 'GET', path, { token: t.owner.token }, 404);
    expect(await s.ok('listSiteAdaptiveTemplateConditions', 'GET', `${path}/template-conditions`, { token: t.reader.token })).toEqual({
      items: [],
    });
  });

  it('PUT sets a valid schema (200); GET reads it back; template conditions come from its claims', async () => {
    const put = await s.ok('updateSiteAdaptiveSchema', 'PUT', path, { token: t.creator.token, body: { jsonSchema: schema } });
    expect(put).toEqual({ object: 'site-adaptive-schema', jsonSchema: schema, updatedAt: expect.any(String) });
    expect(await s.ok('getSiteAdaptiveSchema', 'GET', path, { token: t.reader.token })).toEqual(put);
    const conditions = await s.ok('listSiteAdaptiveTemplateConditions', 'GET', `${path}/template-conditions`, { token: t.reader.token });
    expect(conditions.items).toEqual([
      { description: 'Dark mode fan', condition: 'visitor.claims.unsigned.prefersDark == true' },
      { description: 'Whether the visitor is a beta user.', condition: 'visitor.claims.isBetaUser == true' },
    ]);
    // The suggested conditions are valid conditions for sections.
    const space = await s.space(t.owner, 'Beta');
    const site = path.split('/')[5]!;
    const section = await s.section(t.owner, t.orgId, site, { spaceId: space.id });
    const updated = await s.ok('updateSiteSectionById', 'PATCH', `${s.sitePath(t.orgId, site)}/sections/${section.id}`, {
      token: t.owner.token,
      body: { condition: conditions.items[0].condition },
    });
    expect(updated.condition).toBe(conditions.items[0].condition);
  });

  it('PUT refuses what is not a valid adaptive schema with 400 naming what is wrong, changing nothing', async () => {
    const put = (jsonSchema: unknown, message: RegExp) =>
      s.expectRefused('updateSiteAdaptiveSchema', 'PUT', path, { token: t.owner.token, body: { jsonSchema } }, 400, message);
    const { additionalProperties: _a, ...open } = schema;
    await put(open, /jsonSchema\.additionalProperties: is required/);
    await put({ ...schema, additionalProperties: true }, /jsonSchema\.additionalProperties: must be false/);
    await put({ ...schema, type: 'array' }, /jsonSchema\.type: must be "object"/);
    await put({ ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema' }, /jsonSchema\.\$schema/);
    await put(
      { ...schema, properties: { plan: { type: 'string', description: 'Plan' } } },
      /jsonSchema\.properties\.plan\.type: must be "boolean"/,
    );
    await put({ ...schema, properties: { beta: { type: 'boolean' } } }, /jsonSchema\.properties\.beta\.description: is required/);
    await put(
      { ...schema, properties: { 'not-an-id': { type: 'boolean', description: 'x' } } },
      /jsonSchema\.properties\.not-an-id: claim names must be identifiers/,
    );
    await put(
      { ...schema, properties: { unsigned: { ...schema.properties.unsigned, additionalProperties: true } } },
      /jsonSchema\.properties\.unsigned\.additionalProperties: must be false/,
    );
    await put(
      { ...schema, properties: { unsigned: { ...schema.properties.unsigned, properties: { x: { type: 'number', description: 'x' } } } } },
      /jsonSchema\.properties\.unsigned\.properties\.x\.type: must be "boolean"/,
    );
    await put(
      { ...schema, properties: { unsigned: { ...schema.properties.unsigned, description: 'Mine' } } },
      /jsonSchema\.properties\.unsigned\.description/,
    );
    await put('not an object', /jsonSchema/);
    await s.expectRefused('updateSiteAdaptiveSchema', 'PUT', path, { token: t.owner.token, body: {} }, 400, /jsonSchema/);
  });

  it('refuses no token 401, outsider 404, reader 403 (PUT), missing site 404', async () => {
    await s.expectRefused('updateSiteAdaptiveSchema', 'PUT', path, { token: null, body: { jsonSchema: schema } }, 401);
    await s.expectRefused('updateSiteAdaptiveSchema', 'PUT', path, { token: t.outsider.token, body: { jsonSchema: schema } }, 404);
    await s.expectRefused('updateSiteAdaptiveSchema', 'PUT', path, { token: t.reader.token, body: { jsonSchema: schema } }, 403);
    await s.expectRefused('getSiteAdaptiveSchema', 'GET', path, { token: t.outsider.token }, 404);
    await s.expectRefused(
      'getSiteAdaptiveSchema',
      'GET',
      `${s.sitePath(t.orgId, 'missing')}/adaptive-schema`,
      { token: t.owner.token },
      404,
    );
  });
});

describe('share links', () => {
  let t: Team;
  let path: string;
  beforeAll(async () => {
    t = await s.team();
    path = `${s.sitePath(t.orgId, (await s.site(t.owner, t.orgId, { visibility: 'share-link' })).id)}/share-links`;
  });

  it('create (201) makes an active link whose secret key is unguessable and only in urls.published', async () => {
    const link = await s.ok('createSiteShareLink', 'POST', path, { token: t.creator.token, body: { name: 'Partners' } }, 201);
    expect(link).toEqual({
      object: 'share-link',
      id: expect.any(String),
      createdAt: expect.any(String),
      name: 'Partners',
      active: true,
      urls: { published: expect.any(String) },
    });
    const key = new URL(link.urls.published).searchParams.get('share')!;
    expect(key).toMatch(/^[0-9A-Za-z]{32}$/);
    expect(key).not.toBe(link.id);
    const other = await s.ok('createSiteShareLink', 'POST', path, { token: t.owner.token, body: { name: '' } }, 201);
    expect(new URL(other.urls.published).searchParams.get('share')).not.toBe(key);
  });

  it('lists links oldest first; readers see them without their keys', async () => {
    const asOwner = await s.ok('listSiteShareLinks', 'GET', path, { token: t.owner.token });
    expect(asOwner.count).toBe(asOwner.items.length);
    expect(asOwner.items[0].name).toBe('Partners');
    expect(asOwner.items.every((l: any) => l.urls.published)).toBe(true);
    const asReader = await s.ok('listSiteShareLinks', 'GET', path, { token: t.reader.token });
    expect(asReader.items.map((l: any) => l.id)).toEqual(asOwner.items.map((l: any) => l.id));
    expect(asReader.items.every((l: any) => l.urls.published === undefined)).toBe(true);
    const paged = await s.ok('listSiteShareLinks', 'GET', `${path}?limit=1`, { token: t.owner.token });
    expect(paged.items).toHaveLength(1);
    expect(paged.next.page).toEqual(expect.any(String));
  });

  it('PATCH renames and deactivates; DELETE answers 205 then 404', async () => {
    const link = await s.ok('createSiteShareLink', 'POST', path, { token: t.owner.token, body: { name: 'Temp' } }, 201);
    const updated = await s.ok('updateSiteShareLinkById', 'PATCH', `${path}/${link.id}`, {
      token: t.creator.token,
      body: { active: false, name: 'Old' },
    });
    expect(updated).toMatchObject({ id: link.id, active: false, name: 'Old' });
    expect((await h.rest('deleteSiteShareLinkById', 'DELETE', `${path}/${link.id}`, { token: t.owner.token })).status).toBe(205);
    await s.expectRefused(
      'deleteSiteShareLinkById',
      'DELETE',
      `${path}/${link.id}`,
      { token: t.owner.token },
      404,
      /^Share link not found$/,
    );
  });

  it('refuses bad input with 400, a missing link with 404, changing nothing', async () => {
    const link = await s.ok('createSiteShareLink', 'POST', path, { token: t.owner.token, body: { name: 'Keep' } }, 201);
    await s.expectRefused('createSiteShareLink', 'POST', path, { token: t.owner.token, body: { name: 'x'.repeat(51) } }, 400, /name/);
    await s.expectRefused('createSiteShareLink', 'POST', path, { token: t.owner.token, body: {} }, 400, /name/);
    await s.expectRefused(
      'updateSiteShareLinkById',
      'PATCH',
      `${path}/${link.id}`,
      { token: t.owner.token, body: {} },
      400,
      /active or name/,
    );
    await s.expectRefused(
      'updateSiteShareLinkById',
      'PATCH',
      `${path}/${link.id}`,
      { token: t.owner.token, body: { active: 'no' } },
      400,
      /active/,
    );
    await s.expectRefused(
      'updateSiteShareLinkById',
      'PATCH',
      `${path}/${link.id}`,
      { token: t.owner.token, body: { active: null } },
      400,
      /active/,
    );
    await s.expectRefused(
      'updateSiteShareLinkById',
      'PATCH',
      `${path}/${link.id}`,
      { token: t.owner.token, body: { name: 'y'.repeat(51) } },
      400,
      /name/,
    );
    await s.expectRefused('updateSiteShareLinkById', 'PATCH', `${path}/missing`, { token: t.owner.token, body: { active: true } }, 404);
  });

  it('refuses no token 401, outsider 404, reader 403', async () => {
    const link = await s.ok('createSiteShareLink', 'POST', path, { token: t.owner.token, body: { name: 'Rights' } }, 201);
    for (const [token, status] of [
      [null, 401],
      [t.outsider.token, 404],
      [t.reader.token, 403],
    ] as const) {
      await s.expectRefused('createSiteShareLink', 'POST', path, { token, body: { name: 'x' } }, status);
      await s.expectRefused('updateSiteShareLinkById', 'PATCH', `${path}/${link.id}`, { token, body: { active: false } }, status);
      await s.expectRefused('deleteSiteShareLinkById', 'DELETE', `${path}/${link.id}`, { token }, status);
      if (status !== 403) await s.expectRefused('listSiteShareLinks', 'GET', path, { token }, status);
    }
  });
});

describe('GraphQL', () => {
  it("an outsider reaching a public site through its published profile sees the published parts, not the site's management", async () => {
    const t = await s.team();
    const space = await s.space(t.owner, 'Public guide');
    const site = await s.site(t.owner, t.orgId, { spaces: [space.id] });
    await s.ok('publishSite', 'POST', `${s.sitePath(t.orgId, site.id)}/publish`, { token: t.owner.token });
    await s.ok(
      'createSiteShareLink',
      'POST',
      `${s.sitePath(t.orgId, site.id)}/share-links`,
      { token: t.owner.token, body: { name: 'Secret partner' } },
      201,
    );
    const q = (fields: string) =>
      h.graphql(t.outsider.token, `query($o: ID!, $id: ID!) { publishedSite(organizationId: $o, id: $id) { site { title ${fields} } } }`, {
        o: t.orgId,
        id: site.id,
      });
    expect((await q('')).body.data.publishedSite.site.title).toBe('Docs');
    const published = await h.graphql(
      t.outsider.token,
      `query($o: ID!, $id: ID!) { publishedSite(organizationId: $o, id: $id) { structure { type structure { ... on SiteSpace { title } } } } }`,
      { o: t.orgId, id: site.id },
    );
    expect(published.body.data.publishedSite.structure.structure).toEqual([{ title: 'Public guide' }]);
    for (const field of [
      'shareLinks { items { name } }',
      'adaptiveSchema { updatedAt }',
      'adaptiveTemplateConditions { condition }',
      'sections { count }',
      'sectionGroups { count }',
      'siteSpaces { count }',
      'structure { type }',
    ]) {
      const res = await q(field);
      expect(res.body.errors?.[0]?.extensions?.code, field).toBe('NOT_FOUND');
      expect(JSON.stringify(res.body)).not.toContain('Secret partner');
    }
  });

  it('reads the same sites and refuses a reader’s mutation with FORBIDDEN', async () => {
    const t = await s.team();
    const site = await s.site(t.owner, t.orgId, { title: 'Via REST' });
    const res = await h.graphql(
      t.reader.token,
      `query($id: ID!) { organization(id: $id) { sites { count items { id title visibility type siteSpaceCount shareLinks { count } } } } }`,
      { id: t.orgId },
    );
    expect(res.body.data.organization.sites).toEqual({
      count: 1,
      items: [{ id: site.id, title: 'Via REST', visibility: 'public', type: 'basic', siteSpaceCount: 0, shareLinks: { count: 0 } }],
    });
    const mutation = await h.graphql(t.reader.token, `mutation($o: ID!, $id: ID!) { publishSite(organizationId: $o, id: $id) { id } }`, {
      o: t.orgId,
      id: site.id,
    });
    expect(mutation.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const created = await h.graphql(
      t.owner.token,
      `mutation($o: ID!) { createSite(organizationId: $o, input: { title: "By GraphQL", visibility: share_link, type: legacy_basic }) { id visibility type } }`,
      { o: t.orgId },
    );
    expect(created.body.data.createSite).toMatchObject({ visibility: 'share_link', type: 'legacy_basic' });
  });
});
