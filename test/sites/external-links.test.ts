import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type World } from '../support/harness.js';
import { documentedStatuses } from '../support/openapi.js';
import { siteHelpers } from '../support/sites.js';

/**
 * Site external links (official addExternalLinkToSite, updateSiteExternalLinkById,
 * deleteSiteExternalLinkById): stored, shown in the site structure where the official schema puts
 * them (the root's items, a group's children), ordered with sections and groups (sortSiteStructure),
 * drafts left out of the published structure; bad input 400 naming the field with nothing changed;
 * callers without the right refused.
 */
let h: Harness;
const s = siteHelpers(() => h);
beforeAll(async () => {
  h = await setupHarness();
});

/**
 * Structures holding external links exist only in 0.202.0: 0.146.0's SiteStructure has no place for
 * them (a 0.146.0 client cannot read them), so those answers are checked against 0.202.0 alone.
 */
const spec0202 = createRequire(import.meta.url)('gitbook-api-0202/spec/openapi.json');
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, discriminator: false });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
ajv.addFormat('icon', true);
ajv.addFormat('emoji', true);
ajv.addSchema({ ...spec0202, $id: 'openapi' });
const operation0202 = (operationId: string) =>
  Object.entries<any>(spec0202.paths).flatMap(([path, item]) =>
    Object.entries<any>(item)
      .filter(([, op]) => op?.operationId === operationId)
      .map(([method]) => ({ path, method })),
  )[0]!;
async function ok0202(operationId: string, method: string, path: string, opts: { token: string; body?: unknown }, status = 200) {
  const res = await h.call(method, path, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const op = operation0202(operationId);
  const pointer = ['paths', op.path, op.method, 'responses', String(status), 'content', 'application/json', 'schema']
    .map((x) => x.replace(/~/g, '~0').replace(/\//g, '~1'))
    .map(encodeURIComponent)
    .join('/');
  const validate = ajv.compile({ $ref: `openapi#/${pointer}` });
  expect(validate(res.body), `${operationId}: ${JSON.stringify(validate.errors?.slice(0, 5))}`).toBe(true);
  return res.body;
}

/** Everything stored, external links included: a refused request must change none of it. */
const stored = async () => JSON.stringify(await h.db.prisma.siteExternalLink.findMany({ orderBy: { id: 'asc' } })) + (await s.snapshot());

async function refused(
  operationId: string,
  method: string,
  path: string,
  opts: { token: string; body?: unknown },
  status: number,
  message?: RegExp,
) {
  const before = await stored();
  // The official statuses are checked against the schema; others (403: the description lists only 201, 400 and default) by shape.
  const res = documentedStatuses(operationId).includes(String(status))
    ? await h.rest(operationId, method, path, opts)
    : await h.call(method, path, opts);
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (message) expect(res.body.error.message).toMatch(message);
  expect(await stored()).toBe(before);
}

describe('site external links', () => {
  let t: World;
  let path: string;
  let sections: { id: string }[];
  let group: { id: string };
  beforeAll(async () => {
    t = await s.team();
    const a = await s.space(t.owner, 'A');
    const b = await s.space(t.owner, 'B');
    const site = await s.site(t.owner, t.orgId);
    path = s.sitePath(t.orgId, site.id);
    sections = [
      await s.section(t.owner, t.orgId, site.id, { spaceId: a.id, title: 'Guides' }),
      await s.section(t.owner, t.orgId, site.id, { spaceId: b.id, title: 'Reference' }),
    ];
    group = await s.group(t.owner, t.orgId, site.id, { title: 'More', sections: [sections[1]!.id] });
    await s.ok('publishSite', 'POST', `${path}/publish`, { token: t.owner.token });
  });

  const structure = async (token = t.reader.token) =>
    (await ok0202('getSiteStructure', 'GET', `${path}/structure`, { token })).structure as any[];
  const ids = (items: any[]) => items.map((i) => `${i.object}:${i.title}`);

  it('add at the root and in a group; shown in the structure; update; delete', async () => {
    const status = await s.ok(
      'addExternalLinkToSite',
      'POST',
      `${path}/external-links`,
      { token: t.creator.token, body: { title: 'Status', url: 'https://status.example.com/', icon: 'signal', description: 'Uptime' } },
      201,
    );
    expect(status).toEqual({
      object: 'site-external-link',
      id: expect.any(String),
      title: 'Status',
      url: 'https://status.example.com/',
      icon: 'signal',
      description: 'Uptime',
      draft: false,
    });
    const blog = await s.ok(
      'addExternalLinkToSite',
      'POST',
      `${path}/external-links`,
      {
        token: t.owner.token,
        body: {
          title: 'Blog',
          url: 'https://blog.example.com',
          parent: group.id,
          localizedTitle: { fr: 'Le blog' },
          condition: 'visitor.claims.unsigned.beta == true',
        },
      },
      201,
    );
    expect(blog).toMatchObject({
      sectionGroup: group.id,
      localizedTitle: { fr: 'Le blog' },
      condition: 'visitor.claims.unsigned.beta == true',
    });

    // Root: the sections and groups in their order, the new link at the end; the group's children likewise.
    let top = await structure();
    expect(ids(top)).toEqual(['site-section:Guides', 'site-section-group:More', 'site-external-link:Status']);
    expect(ids(top[1].children)).toEqual(['site-section:Reference', 'site-external-link:Blog']);
    expect(top[1].sections.map((x: any) => x.id)).toEqual([sections[1]!.id]);

    // Update: fields, null removes, parent null moves to the root's end; a draft leaves the published structure.
    const updated = await s.ok('updateSiteExternalLinkById', 'PATCH', `${path}/external-links/${blog.id}`, {
      token: t.creator.token,
      body: { title: 'Engineering blog', parent: null, localizedTitle: null, condition: null, draft: true },
    });
    expect(updated).toEqual({
      object: 'site-external-link',
      id: blog.id,
      title: 'Engineering blog',
      url: 'https://blog.example.com',
      draft: true,
    });
    top = await structure();
    expect(ids(top)).toEqual([
      'site-section:Guides',
      'site-section-group:More',
      'site-external-link:Status',
      'site-external-link:Engineering blog',
    ]);
    const published = await ok0202('getPublishedContentSite', 'GET', `${path}/published`, { token: t.outsider.token });
    expect(ids(published.structure.structure)).toEqual(['site-section:Guides', 'site-section-group:More', 'site-external-link:Status']);

    // Delete: 205, then 404 for what is gone.
    expect(
      (await h.rest('deleteSiteExternalLinkById', 'DELETE', `${path}/external-links/${blog.id}`, { token: t.owner.token })).status,
    ).toBe(205);
    await s.expectRefused(
      'deleteSiteExternalLinkById',
      'DELETE',
      `${path}/external-links/${blog.id}`,
      { token: t.owner.token },
      404,
      /^Site external link not found$/,
    );
    expect(ids(await structure())).toEqual(['site-section:Guides', 'site-section-group:More', 'site-external-link:Status']);
  });

  it('sortSiteStructure orders links with sections and groups (into and out of groups)', async () => {
    const links = await h.db.prisma.siteExternalLink.findMany({ where: { site: { id: path.split('/').pop() } } });
    const status = links.find((l) => l.title === 'Status')!;
    const sort = (body: unknown) => ok0202('sortSiteStructure', 'PATCH', `${path}/structure/sort`, { token: t.creator.token, body });
    const moved = await sort({
      item: { type: 'site-external-link', id: status.id },
      position: { before: { type: 'site-section', id: sections[0]!.id } },
    });
    expect(moved).toMatchObject({ object: 'site-external-link', id: status.id });
    expect(ids(await structure())).toEqual(['site-external-link:Status', 'site-section:Guides', 'site-section-group:More']);
    // Into the group, after its section.
    await sort({ item: { type: 'site-external-link', id: status.id }, position: { after: { type: 'site-section', id: sections[1]!.id } } });
    let top = await structure();
    expect(ids(top[1].children)).toEqual(['site-section:Reference', 'site-external-link:Status']);
    // A section before the link (in the group), then a group after… everything keeps one order.
    await sort({ item: { type: 'site-section', id: sections[0]!.id }, position: { after: { type: 'site-external-link', id: status.id } } });
    top = await structure();
    expect(ids(top)).toEqual(['site-section-group:More']);
    expect(ids(top[0].children)).toEqual(['site-section:Reference', 'site-external-link:Status', 'site-section:Guides']);
    await sort({ item: { type: 'site-external-link', id: status.id }, position: {} });
    top = await structure();
    expect(ids(top)).toEqual(['site-section-group:More', 'site-external-link:Status']);
    // Deleting the group puts what it held (sections and links) in its place.
    await h.rest('deleteSiteSectionGroupById', 'DELETE', `${path}/section-groups/${group.id}`, { token: t.owner.token });
    expect(ids(await structure())).toEqual(['site-section:Reference', 'site-section:Guides', 'site-external-link:Status']);
    group = await s.group(t.owner, t.orgId, path.split('/').pop()!, { title: 'More', sections: [sections[1]!.id] });
    // Unknown link: 404; a link as its own anchor: 400 naming the field.
    await refused(
      'sortSiteStructure',
      'PATCH',
      `${path}/structure/sort`,
      { token: t.owner.token, body: { item: { type: 'site-external-link', id: 'missing' }, position: {} } },
      404,
    );
    await refused(
      'sortSiteStructure',
      'PATCH',
      `${path}/structure/sort`,
      {
        token: t.owner.token,
        body: { item: { type: 'site-external-link', id: status.id }, position: { before: { type: 'site-external-link', id: status.id } } },
      },
      400,
      /^position\.before\.id/,
    );
  });

  it('bad input: 400 naming the field, nothing changed', async () => {
    const url = `${path}/external-links`;
    const token = t.owner.token;
    await refused('addExternalLinkToSite', 'POST', url, { token, body: { url: 'https://x.example.com' } }, 400, /title/);
    await refused('addExternalLinkToSite', 'POST', url, { token, body: { title: 'X', url: 'https://x.example.com' } }, 400, /^title: /);
    await refused('addExternalLinkToSite', 'POST', url, { token, body: { title: 'Docs', url: 'ftp://x.example.com' } }, 400, /^url: /);
    await refused('addExternalLinkToSite', 'POST', url, { token, body: { title: 'Docs', url: '/relative' } }, 400, /^url: /);
    // Not a URI as the official schema's `format: uri` has it (the answer would not validate).
    await refused(
      'addExternalLinkToSite',
      'POST',
      url,
      { token, body: { title: 'Docs', url: 'https://x.example.com/"><b>' } },
      400,
      /^url: .*percent-encoded/,
    );
    await refused(
      'addExternalLinkToSite',
      'POST',
      url,
      { token, body: { title: 'Docs', url: 'https://x.example.com/a b' } },
      400,
      /^url: /,
    );
    await refused(
      'addExternalLinkToSite',
      'POST',
      url,
      { token, body: { title: 'Docs', url: 'https://x.example.com', parent: sections[0]!.id } },
      400,
      /^parent: .*section/,
    );
    await refused(
      'addExternalLinkToSite',
      'POST',
      url,
      { token, body: { title: 'Docs', url: 'https://x.example.com', parent: 'nope' } },
      400,
      /^parent: /,
    );
    await refused(
      'addExternalLinkToSite',
      'POST',
      url,
      { token, body: { title: 'Docs', url: 'https://x.example.com', condition: 'a b' } },
      400,
      /^condition: /,
    );
    await refused(
      'addExternalLinkToSite',
      'POST',
      url,
      { token, body: { title: 'Docs', url: 'https://x.example.com', localizedTitle: { xx: 'Y' } } },
      400,
      /^localizedTitle\.xx: /,
    );
    await refused(
      'addExternalLinkToSite',
      'POST',
      url,
      { token, body: { title: 'Docs', url: 'https://x.example.com', description: 'd'.repeat(257) } },
      400,
      /^description: /,
    );
    const link = await s.ok('addExternalLinkToSite', 'POST', url, { token, body: { title: 'Temp', url: 'https://t.example.com' } }, 201);
    await refused('updateSiteExternalLinkById', 'PATCH', `${url}/${link.id}`, { token, body: { url: null } }, 400, /^url: /);
    await refused('updateSiteExternalLinkById', 'PATCH', `${url}/${link.id}`, { token, body: { title: null } }, 400, /^title: /);
    await refused(
      'updateSiteExternalLinkById',
      'PATCH',
      `${url}/${link.id}`,
      { token, body: { parent: sections[0]!.id } },
      400,
      /^parent: /,
    );
    await refused('updateSiteExternalLinkById', 'PATCH', `${url}/missing`, { token, body: { title: 'Other' } }, 404);
    // A site without sections has no place for links.
    const plain = await s.site(t.owner, t.orgId, { title: 'Plain' });
    await refused(
      'addExternalLinkToSite',
      'POST',
      `${s.sitePath(t.orgId, plain.id)}/external-links`,
      { token, body: { title: 'Docs', url: 'https://x.example.com' } },
      400,
      /sections/,
    );
    await h.rest('deleteSiteExternalLinkById', 'DELETE', `${url}/${link.id}`, { token });
  });

  it('callers without the right are refused: readers 403, outsiders 404', async () => {
    const link = await s.ok(
      'addExternalLinkToSite',
      'POST',
      `${path}/external-links`,
      { token: t.owner.token, body: { title: 'Kept', url: 'https://k.example.com' } },
      201,
    );
    for (const [who, status] of [
      [t.reader, 403],
      [t.guest, 403],
      [t.outsider, 404],
    ] as const) {
      await refused(
        'addExternalLinkToSite',
        'POST',
        `${path}/external-links`,
        { token: who.token, body: { title: 'Nope', url: 'https://n.example.com' } },
        status,
      );
      await refused(
        'updateSiteExternalLinkById',
        'PATCH',
        `${path}/external-links/${link.id}`,
        { token: who.token, body: { title: 'Nope' } },
        status,
      );
      await refused('deleteSiteExternalLinkById', 'DELETE', `${path}/external-links/${link.id}`, { token: who.token }, status);
      await refused(
        'sortSiteStructure',
        'PATCH',
        `${path}/structure/sort`,
        { token: who.token, body: { item: { type: 'site-external-link', id: link.id }, position: {} } },
        status,
      );
    }
  });

  it('GraphQL: the structure lists links; the mutations answer them', async () => {
    const [org, site] = [t.orgId, path.split('/').pop()];
    const res = await h.graphql(
      t.owner.token,
      `mutation($o: ID!, $s: ID!) { addSiteExternalLink(organizationId: $o, siteId: $s, input: { title: "Forum", url: "https://forum.example.com", parent: "${group.id}" }) { id object sectionGroup } }`,
      { o: org, s: site },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.addSiteExternalLink).toMatchObject({ object: 'site-external-link', sectionGroup: group.id });
    const q = await h.graphql(
      t.reader.token,
      `query($o: ID!, $s: ID!) { site(organizationId: $o, id: $s) { structure { externalLinks { title } structure { __typename ... on SiteSectionGroup { children { __typename ... on SiteExternalLink { title url } } } } } } }`,
      { o: org, s: site },
    );
    expect(q.body.errors).toBeUndefined();
    expect(q.body.data.site.structure.externalLinks.map((l: any) => l.title)).toContain('Forum');
    const groupNode = q.body.data.site.structure.structure.find((x: any) => x.__typename === 'SiteSectionGroup');
    expect(groupNode.children).toContainEqual({ __typename: 'SiteExternalLink', title: 'Forum', url: 'https://forum.example.com' });

    // A draft link in a group: members see it in the site's structure, visitors' publishedSite leaves it out at every depth.
    const draft = await h.graphql(
      t.owner.token,
      `mutation($o: ID!, $s: ID!) { addSiteExternalLink(organizationId: $o, siteId: $s, input: { title: "Draft", url: "https://draft.example.com", parent: "${group.id}", draft: true }) { id } }`,
      { o: org, s: site },
    );
    expect(draft.body.errors).toBeUndefined();
    const children = `structure { __typename ... on SiteSectionGroup { children { __typename ... on SiteExternalLink { title } } } } groups { children { __typename ... on SiteExternalLink { title } } }`;
    const titles = (structure: any) =>
      [...structure.structure.filter((x: any) => x.__typename === 'SiteSectionGroup'), ...structure.groups].flatMap((g: any) =>
        g.children.map((c: any) => c.title).filter(Boolean),
      );
    const member = await h.graphql(
      t.reader.token,
      `query($o: ID!, $s: ID!) { site(organizationId: $o, id: $s) { structure { ${children} } } }`,
      { o: org, s: site },
    );
    expect(member.body.errors).toBeUndefined();
    expect(titles(member.body.data.site.structure)).toContain('Draft');
    const visitor = await h.graphql(
      t.reader.token,
      `query($o: ID!, $s: ID!) { publishedSite(organizationId: $o, id: $s) { structure { ${children} } } }`,
      { o: org, s: site },
    );
    expect(visitor.body.errors).toBeUndefined();
    expect(titles(visitor.body.data.publishedSite.structure)).toContain('Forum');
    expect(titles(visitor.body.data.publishedSite.structure)).not.toContain('Draft');
  });
});
