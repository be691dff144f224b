import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedFileUrl } from '../../src/file-urls.js';
import { redactPath } from '../../src/http/redact.js';
import { newId } from '../../src/ids.js';
import { hashSecret, serverKeys, ServerKeys } from '../../src/secrets.js';
import { startServer } from '../../src/server.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';
import { writeLive } from '../support/content-writes.js';

/**
 * File URLs are per space and file, signed, expiring, revoked with
 * the space, never publicly cacheable; share-link keys, invite-link codes and PDF export ids are
 * stored hashed (sealed where the API shows them again) and never logged.
 */
let h: Harness;
let a: TestUser & { orgId: string };
let b: TestUser & { orgId: string };

beforeAll(async () => {
  h = await setupHarness();
  [a, b] = await Promise.all([h.owner('Org A'), h.owner('Org B')]);
});

const b64 = (s: string) => Buffer.from(s).toString('base64');
const download = (url: string, method = 'GET') => h.app.fetch(new Request(url, { method }));

async function spaceWithFile(owner: TestUser & { orgId: string }, content: string) {
  const space = await h.call('POST', `/v1/orgs/${owner.orgId}/spaces`, { token: owner.token, body: { title: 'Files' } });
  expect(space.status).toBe(201);
  const written = await writeLive(h, owner.token, space.body.id, [
    { operation: 'insert_files', files: [{ name: 'secret.txt', contentType: 'text/plain', base64: b64(content) }] },
  ]);
  const fileId = written.files[0]!;
  const file = await h.rest('getFileById', 'GET', `/v1/spaces/${space.body.id}/content/files/${fileId}`, { token: owner.token });
  expect(file.status).toBe(200); // h.rest validated it against the official RevisionFile schema
  return { spaceId: space.body.id as string, fileId, url: file.body.downloadURL as string };
}

describe('file URLs', () => {
  it('are per space and file, signed, and never publicly cacheable', async () => {
    const content = `payroll ${newId()}`;
    const f = await spaceWithFile(a, content);
    expect(f.url).toMatch(new RegExp(`^${BASE}/files/${f.spaceId}/${f.fileId}/secret\\.txt\\?expires=\\d+&token=[\\w.-]+$`));
    // The content's hash is nowhere in the URL: knowing the bytes no longer finds them.
    const sha = createHash('sha256').update(content).digest('hex');
    expect(f.url).not.toContain(sha);

    const res = await download(f.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(content);
    const cache = res.headers.get('cache-control')!;
    expect(cache).toMatch(/^private, max-age=\d+$/);
    expect(cache).not.toMatch(/public|immutable/);
    const maxAge = Number(cache.match(/max-age=(\d+)/)![1]);
    const expires = Number(new URL(f.url).searchParams.get('expires'));
    expect(maxAge).toBeGreaterThan(3500);
    expect(maxAge).toBeLessThanOrEqual(2 * 3600);
    expect(Math.abs(expires - Date.now() / 1000 - maxAge)).toBeLessThan(5);
    // max-age counts down to `expires`, so a HEAD a second later may say one second less.
    const headCache = (await download(f.url, 'HEAD')).headers.get('cache-control')!;
    expect(headCache).toMatch(/^private, max-age=\d+$/);
    expect(maxAge - Number(headCache.match(/max-age=(\d+)/)![1])).toBeGreaterThanOrEqual(0);
    expect(maxAge - Number(headCache.match(/max-age=(\d+)/)![1])).toBeLessThanOrEqual(2);

    // The same file in another organization's space (equal bytes share one blob) has its own URL.
    const other = await spaceWithFile(b, content);
    expect(other.url).not.toBe(f.url);
  });

  it('are refused without or with an altered signature, moved to another file or space, the old content-hash form, after expiry', async () => {
    const content = `contract ${newId()}`;
    const f = await spaceWithFile(a, content);
    const other = await spaceWithFile(b, `other ${newId()}`);
    const u = new URL(f.url);
    const token = u.searchParams.get('token')!;
    const expires = u.searchParams.get('expires')!;
    const sha = createHash('sha256').update(content).digest('hex');
    const bad = [
      `${BASE}${u.pathname}`, // no signature
      `${BASE}${u.pathname}?expires=${expires}`,
      `${BASE}${u.pathname}?expires=${Number(expires) + 3600}&token=${token}`, // extended
      `${BASE}${u.pathname}?expires=${expires}&token=${token.slice(0, -2)}${token.endsWith('A') ? 'B' : 'A'}A`, // altered
      `${BASE}/files/${other.spaceId}/${f.fileId}/secret.txt?expires=${expires}&token=${token}`, // another space
      `${BASE}/files/${f.spaceId}/${other.fileId}/secret.txt?expires=${expires}&token=${token}`, // another file
      `${BASE}/files/${sha}/secret.txt`, // before: the content's SHA-256 was the whole capability
      `${BASE}/files/${sha}/secret.txt?type=text/plain`,
    ];
    const answers = await Promise.all(bad.map(async (url) => [url, (await download(url)).status] as const));
    expect(answers.filter(([, status]) => status !== 404)).toEqual([]);

    // Expired: a URL signed for two hours ago.
    const keys = await serverKeys(h);
    const old = signedFileUrl(
      createUrls(BASE),
      keys,
      f.spaceId,
      { id: f.fileId, name: 'secret.txt', contentType: 'text/plain', blob: sha },
      Date.now() - 3 * 3600 * 1000,
    );
    expect(new URL(old).pathname).toBe(u.pathname);
    expect((await download(old)).status).toBe(404);
    // …while the same signing, current, works (so the refusal above is the expiry).
    const fresh = signedFileUrl(createUrls(BASE), keys, f.spaceId, {
      id: f.fileId,
      name: 'secret.txt',
      contentType: 'text/plain',
      blob: sha,
    });
    expect((await download(fresh)).status).toBe(200);
    // Another server key cannot sign for this server.
    const forged = signedFileUrl(createUrls(BASE), new ServerKeys(Buffer.alloc(32, 7)), f.spaceId, {
      id: f.fileId,
      name: 'secret.txt',
      contentType: 'text/plain',
      blob: sha,
    });
    expect((await download(forged)).status).toBe(404);
  });

  it('are revoked when the space is deleted (and work again if it is restored)', async () => {
    const f = await spaceWithFile(a, `minutes ${newId()}`);
    expect((await download(f.url)).status).toBe(200);
    expect((await h.call('DELETE', `/v1/spaces/${f.spaceId}`, { token: a.token })).status).toBe(205);
    const gone = await download(f.url);
    expect(gone.status).toBe(404);
    expect(await gone.json()).toEqual({ error: { code: 404, message: expect.stringMatching(/No such file/) } });
    expect(gone.headers.get('cache-control') ?? '').not.toMatch(/public/);
  });
});

describe('secrets at rest', () => {
  it('share-link keys: only a hash and a sealed copy are stored; the key still opens the site and is shown to site writers', async () => {
    const site = await h.call('POST', `/v1/orgs/${a.orgId}/sites`, { token: a.token, body: { title: 'Shared', visibility: 'share-link' } });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    const path = `/v1/orgs/${a.orgId}/sites/${site.body.id}`;
    const created = await h.rest('createSiteShareLink', 'POST', `${path}/share-links`, { token: a.token, body: { name: 'press' } });
    expect(created.status).toBe(201);
    const key = new URL(created.body.urls.published).searchParams.get('share')!;
    expect(key).toMatch(/^[0-9A-Za-z]{32}$/);

    const row = await h.db.prisma.siteShareLink.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.keyHash).toBe(hashSecret(key));
    expect(JSON.stringify(row)).not.toContain(key);
    const raw = await h.db.pool.query(`SELECT * FROM "SiteShareLink" WHERE id = $1`, [created.body.id]);
    expect(JSON.stringify(raw.rows)).not.toContain(key);

    // Shown again on list to those who may change the site (the official API does).
    const list = await h.rest('listSiteShareLinks', 'GET', `${path}/share-links`, { token: a.token });
    expect(list.body.items.find((l: { id: string }) => l.id === created.body.id).urls.published).toBe(created.body.urls.published);
    // The key is accepted as a share key of the site; its hash is not.
    expect((await h.call('GET', `${path}/sections?shareKey=${key}`, { token: a.token })).status).toBe(200);
    const byHash = await h.call('GET', `${path}/sections?shareKey=${row.keyHash}`, { token: a.token });
    expect(byHash.status).toBe(400);
    expect(byHash.body.error.message).toMatch(/^shareKey/);

    // A link made before keys were sealed (migrated: hash only) keeps working, its URL is not shown again.
    const legacyKey = newId(32);
    await h.db.prisma.siteShareLink.create({ data: { id: newId(), siteId: site.body.id, keyHash: hashSecret(legacyKey), name: 'old' } });
    const again = await h.rest('listSiteShareLinks', 'GET', `${path}/share-links`, { token: a.token });
    expect(again.body.items.find((l: { name: string }) => l.name === 'old').urls).toEqual({});
    expect((await h.call('GET', `${path}/sections?shareKey=${legacyKey}`, { token: a.token })).status).toBe(200);
  });

  it('invite-link codes: the row holds the hash and a sealed copy; the code joins, the hash does not', async () => {
    const created = await h.rest('createOrganizationInvite', 'POST', `/v1/orgs/${a.orgId}/link-invites`, {
      token: a.token,
      body: { role: 'read' },
    });
    expect(created.status).toBe(201);
    const code = created.body.id as string;
    expect(await h.db.prisma.inviteLink.findUnique({ where: { id: code } })).toBeNull();
    const row = await h.db.prisma.inviteLink.findUniqueOrThrow({ where: { id: hashSecret(code) } });
    expect(JSON.stringify(row)).not.toContain(code);
    // Admins see the code again (the official listing shows `id`).
    const list = await h.rest('listOrganizationInviteLinks', 'GET', `/v1/orgs/${a.orgId}/link-invites`, { token: a.token });
    expect(list.body.items.map((i: { id: string }) => i.id)).toContain(code);

    const joiner = await h.user();
    expect((await h.call('POST', `/v1/orgs/${a.orgId}/invites/${row.id}`, { token: joiner.token })).status).toBe(404);
    expect((await h.call('POST', `/v1/orgs/${a.orgId}/invites/${code}`, { token: joiner.token })).status).toBe(200);

    // A link made before codes were sealed (migrated): listed and deletable under its hash, joinable with its code.
    const legacy = newId(32);
    await h.db.prisma.inviteLink.create({ data: { id: hashSecret(legacy), organizationId: a.orgId, role: 'read' } });
    const listed = await h.rest('listOrganizationInviteLinks', 'GET', `/v1/orgs/${a.orgId}/link-invites`, { token: a.token });
    expect(listed.body.items.map((i: { id: string }) => i.id)).toContain(hashSecret(legacy));
    const other = await h.user();
    expect((await h.call('POST', `/v1/orgs/${a.orgId}/invites/${legacy}`, { token: other.token })).status).toBe(200);
    expect((await h.call('DELETE', `/v1/orgs/${a.orgId}/link-invites/${hashSecret(legacy)}`, { token: a.token })).status).toBe(205);
  });

  it('PDF export ids: only the hash is stored, and the hash opens nothing', async () => {
    const space = await h.call('POST', `/v1/orgs/${a.orgId}/spaces`, { token: a.token, body: { title: 'Exported' } });
    const cr = await h.call('POST', `/v1/spaces/${space.body.id}/change-requests`, { token: a.token, body: { subject: 'Draft' } });
    expect(cr.status).toBe(201);
    const res = await h.call('GET', `/v1/spaces/${space.body.id}/change-requests/${cr.body.id}/pdf`, { token: a.token });
    const id = res.body.url.match(/exports\/(\w+)\.pdf$/)[1] as string;
    expect(await h.db.prisma.pdfExport.findUnique({ where: { id } })).toBeNull();
    expect(await h.db.prisma.pdfExport.findUnique({ where: { id: hashSecret(id) } })).not.toBeNull();
    expect((await download(`${BASE}/exports/${hashSecret(id)}.pdf`)).status).toBe(404);
  });

  it("the migration's SQL hash is the application's (migrated secrets keep working)", async () => {
    const value = newId(32);
    const { rows } = await h.db.pool.query(`SELECT encode(sha256(convert_to($1::text, 'UTF8')), 'hex') AS hash`, [value]);
    expect(rows[0].hash).toBe(hashSecret(value));
  });

  it('the server secret is made once, kept in the database, and is the same for every process on it', async () => {
    const rows = await h.db.prisma.serverSecret.findMany();
    expect(rows.map((r) => r.name)).toEqual(['master']);
    expect(rows[0]!.value.length).toBe(32);
    // A second load (another process) signs alike.
    const one = await serverKeys(h);
    expect(one.sign(['x'])).toBe(new ServerKeys(Buffer.from(rows[0]!.value)).sign(['x']));
    await expect(serverKeys({ db: { prisma: {} as never }, config: { secretKey: 'too short' } })).rejects.toThrow(/at least 32/);
  });
});

describe('secrets in logs', () => {
  it('the request log of a real server names no export id or invite code', async () => {
    const lines: string[] = [];
    const server = await startServer(
      { ...h.config, host: '127.0.0.1', port: 0 },
      { db: h.db, worker: false, log: (line) => lines.push(line) },
    );
    try {
      const space = await h.call('POST', `/v1/orgs/${a.orgId}/spaces`, { token: a.token, body: { title: 'Logged' } });
      const cr = await h.call('POST', `/v1/spaces/${space.body.id}/change-requests`, { token: a.token, body: { subject: 'Draft' } });
      const pdf = await h.call('GET', `/v1/spaces/${space.body.id}/change-requests/${cr.body.id}/pdf`, { token: a.token });
      const exportId = pdf.body.url.match(/exports\/(\w+)\.pdf$/)[1] as string;
      const invite = await h.call('POST', `/v1/orgs/${a.orgId}/link-invites`, { token: a.token, body: { role: 'read' } });
      const code = invite.body.id as string;
      const joiner = await h.user();
      const auth = (t: string) => ({ authorization: `Bearer ${t}` });

      expect((await fetch(`${server.url}/exports/${exportId}.pdf`)).status).toBe(200);
      expect((await fetch(`${server.url}/v1/orgs/${a.orgId}/link-invites/${code}`, { headers: auth(a.token) })).status).toBe(200);
      expect(
        (await fetch(`${server.url}/v1/orgs/${a.orgId}/invites/${code}`, { method: 'POST', headers: auth(joiner.token) })).status,
      ).toBe(200);
      await fetch(`${server.url}/v1/orgs/${a.orgId}/invites/${encodeURIComponent(code)}%41`, {
        method: 'POST',
        headers: auth(joiner.token),
      });

      const requestLines = lines.filter((l) => /^(GET|POST) /.test(l));
      expect(requestLines.length).toBeGreaterThanOrEqual(4);
      for (const line of lines) {
        expect(line).not.toContain(exportId);
        expect(line).not.toContain(code);
        expect(line).not.toContain(a.token);
      }
      expect(requestLines).toContainEqual(expect.stringMatching(/^GET \/exports\/\[redacted\]\.pdf 200 /));
      expect(requestLines).toContainEqual(expect.stringMatching(new RegExp(`^POST /v1/orgs/${a.orgId}/invites/\\[redacted\\] 200 `)));
    } finally {
      await server.close();
    }
  });

  it('redactPath hides secret segments and keeps the rest', () => {
    expect(redactPath('/exports/AbC123.pdf')).toBe('/exports/[redacted].pdf');
    expect(redactPath('/exports/AbC123')).toBe('/exports/[redacted]');
    expect(redactPath('/v1/orgs/o1/invites/CODE')).toBe('/v1/orgs/o1/invites/[redacted]');
    expect(redactPath('/v1/orgs/o1/link-invites/CODE')).toBe('/v1/orgs/o1/link-invites/[redacted]');
    expect(redactPath('/v1/orgs/o1/invites')).toBe('/v1/orgs/o1/invites');
    expect(redactPath('/v1/orgs/o1/link-invites')).toBe('/v1/orgs/o1/link-invites');
    expect(redactPath('/v1/spaces/s1/content')).toBe('/v1/spaces/s1/content');
  });
});
