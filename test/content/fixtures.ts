/**
 * Space and change-request content: the reads (space main and change request head), the write
 * path (live edits to main and edits to a change request) and templates. Each route is tested
 * three ways: it works (bodies checked against the official schema), bad input is refused with the
 * right status and changes nothing, and callers without the rights are refused.
 * This file holds the organization and the helpers the test/content/content-*.test.ts files share.
 */
import { expect } from 'vitest';
import { setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { refusalChecker } from '../support/refused.js';
import { writeCr, writeLive, type Change } from '../support/content-writes.js';

export type Owner = TestUser & { orgId: string };

export let h: Harness;
export let owner: Owner;
export let reader: TestUser;
export let commenter: TestUser;
export let editor: TestUser;
export let outsider: TestUser;

/** The content reads content-read.test.ts covers: each exists on a space's main content and on a change request. */
export const READ_OPERATIONS = [
  'getCurrentRevision',
  'getRevisionOfChangeRequestById',
  'listPages',
  'listPagesInChangeRequest',
  'listFiles',
  'listFilesInChangeRequestById',
  'getFileById',
  'getFileInChangeRequestById',
  'getPageById',
  'getPageInChangeRequestById',
];
/** The content writes with an official operation, covered by content-write.test.ts. */
export const WRITE_OPERATIONS = ['applyTemplateToSpace'];

export async function setupContent() {
  h = await setupHarness();
  ({ owner, reader, outsider } = await h.world());
  [commenter, editor] = [await h.user('Commenter'), await h.user('Editor')];
  await h.addMember(owner.orgId, commenter.id, 'comment');
  await h.addMember(owner.orgId, editor.id, 'edit');
}

// ---------------------------------------------------------------------------------------------
// Helpers

export async function newSpace(body: Record<string, unknown> = { title: 'Docs' }) {
  const res = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body });
  expect(res.status).toBe(201);
  return res.body as { id: string; revision: string };
}

export const spaceRevision = async (spaceId: string) => (await h.db.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;

export const postLive = (spaceId: string, body: unknown, user: { token: string } | null = owner) =>
  h.call('POST', `/v1/spaces/${spaceId}/content`, { token: user?.token ?? null, body });
export const postCr = (spaceId: string, crId: string | number, body: unknown, user: { token: string } | null = owner) =>
  h.call('POST', `/v1/spaces/${spaceId}/change-requests/${crId}/content`, { token: user?.token ?? null, body });

export type { WriteResult as Written } from '../support/content-writes.js';
/** Writes through the official format (test/support/content-writes.ts): throws unless 200; `pages`/`files` are the created ids. */
export const live = (spaceId: string, changes: Change[], user: { token: string } = owner) => writeLive(h, user.token, spaceId, changes);
export const crWrite = (
  spaceId: string,
  crId: string | number,
  changes: Change[],
  user: { token: string } = owner,
  opts: { compat?: boolean } = {},
) => writeCr(h, user.token, spaceId, crId, changes, opts);

export async function openCr(spaceId: string, subject = 'Edits', user: { token: string } = owner) {
  const res = await h.call('POST', `/v1/spaces/${spaceId}/change-requests`, { token: user.token, body: { subject } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; number: number };
}

export async function patchSpace(spaceId: string, body: Record<string, unknown>) {
  const res = await h.call('PATCH', `/v1/spaces/${spaceId}`, { token: owner.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Everything a refused request must leave alone: the harness snapshot plus change requests, reviews, exports and blobs. */
export async function state() {
  const prisma = h.db.prisma;
  const [snapshot, crs, reviews, exports, blobs] = await Promise.all([
    h.snapshot(),
    prisma.changeRequest.findMany({ orderBy: { id: 'asc' } }),
    prisma.changeRequestReview.findMany({ orderBy: [{ changeRequestId: 'asc' }, { userId: 'asc' }] }),
    prisma.pdfExport.findMany({ orderBy: { id: 'asc' } }),
    prisma.fileBlob.findMany({ select: { hash: true }, orderBy: { hash: 'asc' } }),
  ]);
  return `${snapshot}${JSON.stringify({ crs, reviews, exports, blobs })}`;
}

export const refused = refusalChecker(() => state());

/** Pages of a tree, depth first, as `path` (or `link:title` for link pages, which have no path). */
export function paths(pages: any[]): string[] {
  return pages.flatMap((p) => [p.type === 'link' ? `link:${p.title}` : p.path, ...paths(p.pages ?? [])]);
}
/** Every page of a tree, flat. */
export function flat(pages: any[]): any[] {
  return pages.flatMap((p) => [p, ...flat(p.pages ?? [])]);
}

export const listPages = async (spaceId: string) =>
  (await h.rest('listPages', 'GET', `/v1/spaces/${spaceId}/content/pages`, { token: owner.token })).body.pages as any[];
export const crPages = async (spaceId: string, crId: string | number) =>
  (await h.rest('listPagesInChangeRequest', 'GET', `/v1/spaces/${spaceId}/change-requests/${crId}/content/pages`, { token: owner.token }))
    .body.pages as any[];
export async function getPage(spaceId: string, pageId: string, query = 'format=markdown') {
  const res = await h.rest('getPageById', 'GET', `/v1/spaces/${spaceId}/content/page/${pageId}?${query}`, { token: owner.token });
  expect(res.status).toBe(200);
  return res.body;
}
export const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');
export const download = (url: string, method = 'GET') => h.app.fetch(new Request(url, { method }));

/** A space with a small tree, two files and a variable, all written live. */
export async function fixture() {
  const space = await newSpace();
  const first = await live(space.id, [
    {
      operation: 'insert_page',
      title: 'Guide',
      document: { markdown: '# Guide\n\nUse {{ variables.product }} and {{ variables.missing }}.\n' },
      description: 'How to',
      emoji: '📘',
    },
    { operation: 'insert_page', type: 'group', title: 'Reference' },
    { operation: 'insert_page', type: 'link', title: 'Website', href: 'https://example.com' },
    {
      operation: 'insert_files',
      files: [
        { name: 'logo.png', contentType: 'image/png', base64: b64(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3])) },
        { name: 'notes.txt', contentType: 'text/plain', base64: b64('hello') },
      ],
    },
    { operation: 'update_variables', variables: { product: 'Lectern' } },
  ]);
  const [guide, reference, website] = first.pages as [string, string, string];
  const second = await live(space.id, [
    { operation: 'insert_page', title: 'Setup', into: guide, document: { markdown: 'Install it.\n' } },
    { operation: 'insert_page', title: 'API', into: reference, document: { markdown: '## Endpoints\n' } },
  ]);
  const [setup, api] = second.pages as [string, string];
  const [logo, notes] = first.files as [string, string];
  return { space, first, second, guide, reference, website, setup, api, logo, notes };
}

// ---------------------------------------------------------------------------------------------
