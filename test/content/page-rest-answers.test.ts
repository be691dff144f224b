/**
 * The REST answers holding pages, byte for byte: every page read (tree, one page in both formats
 * and with its options, by path, the whole revision) on main, on a change request and on a revision,
 * and the link listings whose locations carry pages, for a space with document, group, link and
 * computed pages nested three deep (emoji, icon, description, hidden, noIndex, variables, a file,
 * links between pages). Each answer is `JSON.stringify` of the body (key order included), with the
 * values that differ from run to run (ids, times, signatures) named by their first appearance, and
 * compared with the file snapshot taken from the answers of the JSON resolvers the typed page
 * fields replaced: the REST routes rebuild the official JSON from typed GraphQL fields, and may not
 * change one byte of it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';
import { writeCr, writeLive } from '../support/content-writes.js';

let h: Harness;
let w: World;

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1.0.0' },
  tags: [{ name: 'pets', description: 'Everything about pets' }],
  paths: { '/pets': { get: { tags: ['pets'], summary: 'List pets', responses: { '200': { description: 'The pets' } } } } },
};
const computed = {
  type: 'builtin:openapi',
  props: { models: false },
  dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } },
};
const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world();
  const res = await h.call('POST', `/v1/orgs/${w.orgId}/openapi`, {
    token: w.owner.token,
    body: { slug: 'pets', source: { text: JSON.stringify(SPEC) } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await drainJobs({ db: h.db, config: h.config, urls: createUrls(BASE) }, [OPENAPI_JOB]);
});

async function space() {
  const res = await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'Pages' } });
  expect(res.status).toBe(201);
  const id = res.body.id as string;
  const top = await writeLive(h, w.owner.token, id, [
    { operation: 'insert_files', files: [{ name: 'diagram.png', contentType: 'image/png', base64: b64('png bytes') }] },
    { operation: 'insert_page', title: 'Guides', type: 'group', emoji: '1f4da' },
    {
      operation: 'insert_page',
      title: 'Intro',
      emoji: '1f600',
      description: 'Start here',
      noIndex: true,
      document: { markdown: '# Hello\n\nSee [setup](guides/setup.md) for {{ variables.product }}.\n\n![Diagram](diagram.png)\n' },
    },
    {
      operation: 'insert_page',
      title: 'Secret',
      hidden: true,
      noRobotsIndex: true,
      document: { markdown: 'hidden {{ variables.product }}' },
    },
    { operation: 'insert_page', title: 'Elsewhere', type: 'link', href: 'https://example.com/docs', emoji: '1f517' },
    { operation: 'insert_page', type: 'computed', title: 'API', computed },
    { operation: 'insert_page', title: 'Empty', document: { markdown: '' } },
    { operation: 'update_variables', variables: { product: 'Lectern' } },
  ]);
  const [guides, intro] = top.pages as [string, string];
  const [setup] = (
    await writeLive(h, w.owner.token, id, [
      {
        operation: 'insert_page',
        title: 'Setup',
        into: guides,
        icon: 'book',
        description: 'How to install',
        document: { markdown: 'Install it. Back to [intro](../intro.md), for {{ variables.product }}.' },
      },
      { operation: 'insert_page', title: 'Usage', into: guides, hidden: true, document: { markdown: 'Use it.' } },
    ])
  ).pages as [string];
  const [linux] = (
    await writeLive(h, w.owner.token, id, [
      { operation: 'insert_page', title: 'Linux', into: setup, document: { markdown: 'apt install, then [setup](../setup.md)' } },
    ])
  ).pages as [string];
  const deepest = await writeLive(h, w.owner.token, id, [
    {
      operation: 'insert_page',
      title: 'Debian',
      into: linux,
      emoji: '1f427',
      document: { markdown: '# Debian\n\n{{ variables.product }}' },
    },
  ]);
  const cr = await h.rest('createChangeRequest', 'POST', `/v1/spaces/${id}/change-requests`, {
    token: w.owner.token,
    body: { subject: 'Edit' },
  });
  expect(cr.status).toBe(201);
  await writeCr(h, w.owner.token, id, cr.body.id, [
    { operation: 'insert_page', title: 'Later', into: setup, document: { markdown: 'Written in the change request' } },
  ]);
  return { id, guides, intro, setup, linux, cr: cr.body.id as string, revision: deepest.revision };
}

/** The answer's JSON with each run-dependent value named by its first appearance. */
function normalized(body: unknown, ids: string[]): string {
  let text = JSON.stringify(body);
  const names = new Map<string, string>();
  const name = (value: string) => {
    if (!names.has(value)) names.set(value, `<${names.size}>`);
    return names.get(value)!;
  };
  // Longest first: a computed page's id starts with its computed page's.
  for (const id of [...ids].sort((a, b) => b.length - a.length)) text = text.split(id).join(name(id));
  text = text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
  text = text.replace(/"documentId":"([^"]+)"/g, (_m, v: string) => `"documentId":"${name(v)}"`);
  text = text.replace(/"(oid|hash)":"([^"]+)"/g, (_m, k: string, v: string) => `"${k}":"${name(v)}"`);
  // Signed download URLs: the signature and expiry change with the clock and the keys.
  return text.replace(/(\/files\/[^"?]+)\?[^"]*/g, '$1?<signed>');
}

describe('REST answers holding pages', () => {
  it('are byte for byte the answers of the JSON resolvers', async () => {
    const s = await space();
    const token = w.owner.token;
    const revision = (await h.rest('getCurrentRevision', 'GET', `/v1/spaces/${s.id}/content`, { token })).body;
    const ids = [w.orgId, s.id, s.cr, ...revision.files.map((f: any) => f.id), s.revision, ...revision.parents];
    const collect = (pages: any[]): void => pages.forEach((p) => (ids.push(p.id), collect(p.pages ?? [])));
    collect(revision.pages);
    const raw = (await h.rest('listPages', 'GET', `/v1/spaces/${s.id}/content/pages?computed=false`, { token })).body;
    collect(raw.pages);
    const crRevision = (
      await h.rest('getRevisionOfChangeRequestById', 'GET', `/v1/spaces/${s.id}/change-requests/${s.cr}/content`, { token })
    ).body;
    ids.push(crRevision.id);
    collect(crRevision.pages);
    const api = raw.pages.find((p: any) => p.type === 'computed').id;

    const main = `/v1/spaces/${s.id}/content`;
    const byRevision = `/v1/spaces/${s.id}/revisions/${s.revision}`;
    const inCr = `/v1/spaces/${s.id}/change-requests/${s.cr}/content`;
    const reads: [string, string][] = [
      ['getCurrentRevision', main],
      ['getCurrentRevision', `${main}?computed=false`],
      ['getRevisionById', byRevision],
      ['getRevisionOfChangeRequestById', inCr],
      ['listPages', `${main}/pages`],
      ['listPages', `${main}/pages?computed=false`],
      ['listPagesInRevisionById', `${byRevision}/pages`],
      ['listPagesInChangeRequest', `${inCr}/pages`],
      ['getPageById', `${main}/page/${s.guides}`],
      ['getPageById', `${main}/page/${s.guides}?format=markdown`],
      ['getPageById', `${main}/page/${s.intro}`],
      ['getPageById', `${main}/page/${s.intro}?format=markdown&evaluated=true`],
      ['getPageById', `${main}/page/${s.setup}?evaluated=true&dereferenced=true`],
      ['getPageById', `${main}/page/${s.setup}?format=markdown`],
      ['getPageById', `${main}/page/${s.linux}?format=document&evaluated=deterministic-only`],
      ['getPageById', `${main}/page/${api}?computed=false`],
      ['getPageById', `${main}/page/${api}-pets`],
      ['getPageInRevisionById', `${byRevision}/page/${s.setup}`],
      ['getPageInChangeRequestById', `${inCr}/page/${s.setup}?format=markdown`],
      ['getPageByPath', `${main}/path/guides`],
      ['getPageByPath', `${main}/path/guides/setup?format=markdown&evaluated=true`],
      ['getPageByPath', `${main}/path/Guides/Setup/Linux/`],
      ['getPageByPath', `${main}/path/empty`],
      ['getPageByPath', `${main}/path/pets`],
      ['getPageInRevisionByPath', `${byRevision}/path/guides/setup/linux/debian?format=markdown`],
      ['getPageInChangeRequestByPath', `${inCr}/path/guides/setup`],
      ['listSpaceLinks', `/v1/spaces/${s.id}/links`],
      ['listChangeRequestLinks', `/v1/spaces/${s.id}/change-requests/${s.cr}/links`],
      ['listPageLinksInSpace', `${main}/page/${s.intro}/links`],
      ['listSpacePageBacklinks', `${main}/page/${s.setup}/backlinks`],
      ['listChangeRequestPageBacklinks', `${inCr}/page/${s.intro}/backlinks`],
      ['listSpaceFileBacklinks', `${main}/files/${revision.files[0].id}/backlinks`],
    ];
    const answers: Record<string, string> = {};
    for (const [operationId, path] of reads) {
      const res = await h.rest(operationId, 'GET', path, { token });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
      answers[`${operationId} ${normalized(path, ids)}`] = normalized(res.body, ids);
    }
    await expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot('./__snapshots__/page-rest-answers.json');
  });
});
