/** Change requests: the PDF export (GET .../pdf, the export it points to, the GraphQL mutation) (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { BASE } from '../support/harness.js';
import { newId } from '../../src/ids.js';
import { hashSecret } from '../../src/secrets.js';
import {
  h,
  owner,
  reader,
  outsider,
  CHANGE_REQUEST_OPERATIONS,
  setupChangeRequests,
  newSpace,
  crPath,
  createCr,
  write,
  pdf,
  refused,
} from './fixtures.js';

beforeAll(setupChangeRequests);

/** The PDF's bookmarks (one per page, nested like the page tree), read from its outline objects. */
function outline(pdf: Buffer): any[] {
  const raw = pdf.toString('latin1');
  const objects = new Map<string, string>();
  for (const m of raw.matchAll(/(\d+) 0 obj\s*<<([\s\S]*?)>>\s*endobj/g)) objects.set(m[1]!, m[2]!);
  const ref = (dict: string, key: string) => dict.match(new RegExp(`/${key} (\\d+) 0 R`))?.[1];
  const catalog = [...objects.values()].find((d) => /\/Type \/Catalog/.test(d))!;
  const walk = (first: string | undefined): any[] => {
    const items: any[] = [];
    for (let id = first; id; id = ref(objects.get(id)!, 'Next')) {
      const dict = objects.get(id)!;
      const title = dict.match(/\/Title \(([^)]*)\)/)![1];
      const children = walk(ref(dict, 'First'));
      items.push(children.length ? [title, children] : title);
    }
    return items;
  };
  return walk(ref(objects.get(ref(catalog, 'Outlines')!)!, 'First'));
}
/** A string of the PDF's document information dictionary (the trailer's /Info). */
function info(pdf: Buffer, key: string): string | undefined {
  const raw = pdf.toString('latin1');
  const object = (id: string) => raw.match(new RegExp(`(?:^|\\n)${id} 0 obj\\s*([\\s\\S]*?)endobj`))?.[1];
  const dict = object(raw.match(/trailer[\s\S]*?\/Info (\d+) 0 R/)![1]!)!;
  const value = dict.match(new RegExp(`/${key} (?:(\\d+) 0 R|\\(([^)]*)\\))`));
  if (!value) return undefined;
  return value[2] ?? object(value[1]!)!.match(/^\(([^)]*)\)/)?.[1];
}

describe('GET .../pdf and the export it points to', () => {
  async function crWithPages() {
    const space = await newSpace({ title: 'Handbook' });
    const [intro] = (
      await write(space.id, null, [{ operation: 'insert_page', title: 'Intro', document: { markdown: '# Welcome\n\nHello.\n' } }])
    ).pages as [string];
    const cr = await createCr(space.id, { subject: 'Handbook draft' });
    const [guide, faq] = (
      await write(space.id, cr.id, [
        { operation: 'insert_page', title: 'Guide', document: { markdown: '- one\n- two\n' } },
        { operation: 'insert_page', title: 'FAQ', document: { markdown: '' } },
      ])
    ).pages as [string, string];
    const [setup] = (
      await write(space.id, cr.id, [
        { operation: 'insert_page', title: 'Setup', into: guide, document: { markdown: '```sh\nnpm i\n```\n' } },
      ])
    ).pages as [string];
    await write(space.id, cr.id, [{ operation: 'insert_page', title: 'Advanced', into: setup, document: { markdown: '' } }]);
    return { space, cr, intro, guide, faq, setup };
  }
  const fetchPdf = async (url: string) => {
    const res = await h.app.fetch(new Request(url));
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it("answers a temporary URL that serves the change request's pages as a PDF, depth first, without a token", async () => {
    const { space, cr } = await crWithPages();
    const res = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, '/pdf'), { token: reader.token });
    expect(res.body).toEqual({ url: expect.stringMatching(new RegExp(`^${BASE}/exports/[0-9A-Za-z]{32}\\.pdf$`)) });
    const id = hashSecret(res.body.url.match(/exports\/(\w+)\.pdf$/)[1]); // only the hash is stored
    expect(await h.db.prisma.pdfExport.findUnique({ where: { id } })).toMatchObject({
      spaceId: space.id,
      changeRequestId: cr.id,
      pageId: null,
    });

    const file = await fetchPdf(res.body.url);
    expect(file.status).toBe(200);
    expect(file.type).toBe('application/pdf');
    expect(file.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(outline(file.bytes)).toEqual(['Intro', ['Guide', [['Setup', ['Advanced']]]], 'FAQ']);
    expect(info(file.bytes, 'Title')).toBe('Handbook draft');
    expect(info(file.bytes, 'Subject')).toBe('Handbook: change request #1');

    // Rendered on request: later edits show in the same export.
    await write(space.id, cr.id, [{ operation: 'insert_page', title: 'Appendix', document: { markdown: '' } }]);
    expect(outline((await fetchPdf(res.body.url)).bytes)).toEqual(['Intro', ['Guide', [['Setup', ['Advanced']]]], 'FAQ', 'Appendix']);
    // Two exports are two URLs.
    const second = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.number, '/pdf'), { token: owner.token });
    expect(second.body.url).not.toBe(res.body.url);
  });

  it('exports only one page when asked', async () => {
    const { space, cr, setup, intro } = await crWithPages();
    const res = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, `/pdf?page=${setup}&only=true`), { token: owner.token });
    const id = hashSecret(res.body.url.match(/exports\/(\w+)\.pdf$/)[1]); // only the hash is stored
    expect((await h.db.prisma.pdfExport.findUniqueOrThrow({ where: { id } })).pageId).toBe(setup);
    expect(outline((await fetchPdf(res.body.url)).bytes)).toEqual(['Setup']);
    const mainPage = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, `/pdf?page=${intro}`), { token: owner.token });
    expect(outline((await fetchPdf(mainPage.body.url)).bytes)).toEqual(['Intro']);
    // The page deleted since: the export serves nothing.
    await write(space.id, cr.id, [{ operation: 'delete_page', page: setup }]);
    expect((await fetchPdf(res.body.url)).status).toBe(404);
  });

  it('expires exports after an hour; unknown and malformed export ids are 404', async () => {
    const { space, cr } = await crWithPages();
    const res = await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, '/pdf'), { token: owner.token });
    const id = hashSecret(res.body.url.match(/exports\/(\w+)\.pdf$/)[1]); // only the hash is stored
    await h.db.prisma.pdfExport.update({ where: { id }, data: { createdAt: new Date(Date.now() - 59 * 60 * 1000) } });
    expect((await fetchPdf(res.body.url)).status).toBe(200);
    await h.db.prisma.pdfExport.update({ where: { id }, data: { createdAt: new Date(Date.now() - 61 * 60 * 1000) } });
    const expired = await h.app.fetch(new Request(res.body.url));
    expect(expired.status).toBe(404);
    expect((await expired.json()).error.message).toMatch(/one hour/);
    // Expired exports are dropped when the next one is made.
    await h.rest('getChangeRequestPDF', 'GET', crPath(space.id, cr.id, '/pdf'), { token: owner.token });
    expect(await h.db.prisma.pdfExport.findUnique({ where: { id } })).toBeNull();
    for (const bad of [newId(32), 'short', `${id}x`, '../../etc/passwd'])
      expect((await fetchPdf(`${BASE}/exports/${bad}.pdf`)).status).toBe(404);
    expect((await h.app.fetch(new Request(res.body.url, { method: 'DELETE' }))).status).toBe(405);
  });

  it('refuses bad parameters (400), unknown pages and change requests (404), and strangers', async () => {
    const { space, cr } = await crWithPages();
    await refused(400, () => pdf(space.id, cr.id, '?page='), /^page\b/);
    await refused(400, () => pdf(space.id, cr.id, '?only=true'), /^page\b/);
    await refused(400, () => pdf(space.id, cr.id, '?only=sometimes'), /^only\b/);
    await refused(404, () => pdf(space.id, cr.id, `?page=${newId()}`), /Page/);
    await refused(404, () => pdf(space.id, newId()), /Change request/);
    await refused(404, () => pdf(newId(), cr.id), /Space/);
    await refused(401, () => pdf(space.id, cr.id, '', null));
    await refused(404, () => pdf(space.id, cr.id, '', outsider), /Space/);
  });

  it('is the exportChangeRequestPdf mutation in GraphQL', async () => {
    const { space, cr } = await crWithPages();
    const res = await h.graphql(
      owner.token,
      `mutation($s: ID!, $c: String!) { exportChangeRequestPdf(spaceId: $s, changeRequestId: $c) { url } }`,
      { s: space.id, c: String(cr.number) },
    );
    expect(res.body.data.exportChangeRequestPdf.url).toMatch(/\/exports\/\w{32}\.pdf$/);
    expect((await fetchPdf(res.body.data.exportChangeRequestPdf.url)).status).toBe(200);
  });
});

describe('coverage of the official operations', () => {
  // Runs last (tests run in file order): each change request route of this file answered a success
  // through h.rest, so it was validated against the official schema of its operation.
  it('exercised every PDF export route successfully', () => {
    expect(CHANGE_REQUEST_OPERATIONS.export.filter((id) => !h.coveredOperations.has(id))).toEqual([]);
  });
});
