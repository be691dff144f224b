import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { hashToken } from '../../src/auth/tokens.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness } from '../support/harness.js';
import { browserGraphql, personWithPassword, SIGN_IN, signedIn, VIEWER, type Browser } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await setupHarness();
});

describe('password sign-in', () => {
  it('answers the sign-in options without authentication', async () => {
    const answer = await browserGraphql(h.app, { cookie: null }, '{ signInOptions { password oidc { label } } }');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { signInOptions: { password: true, oidc: null } } });
  });

  it('sets an HttpOnly, SameSite=Lax session cookie (not Secure over http); only its hash is stored', async () => {
    const person = await personWithPassword(h);
    const browser: Browser = { cookie: null };
    const answer = await browserGraphql(h.app, browser, SIGN_IN, { email: person.email.toUpperCase(), password: person.password });
    expect(answer.body).toEqual({ data: { signIn: { id: person.id, email: person.email } } });
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const cookie = answer.setCookie.find((c) => c.startsWith('lectern_session='))!;
    const attributes = cookie.split(';').map((a) => a.trim());
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${90 * 86400}`]));
    expect(attributes).not.toContain('Secure');
    const stored = await h.db.prisma.session.findMany({ where: { userId: person.id } });
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ hash: hashToken(browser.cookie!), userAgent: 'TestBrowser/1.0', revokedAt: null });
    expect(JSON.stringify(stored)).not.toContain(browser.cookie);
    // The password is stored as an Argon2id hash only.
    const password = await h.db.prisma.userPassword.findUniqueOrThrow({ where: { userId: person.id } });
    expect(password.hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('refuses a wrong password and an unknown email alike, without a cookie', async () => {
    const person = await personWithPassword(h);
    for (const [email, password] of [
      [person.email, 'wrong password!'],
      ['nobody@example.com', person.password],
    ]) {
      const browser: Browser = { cookie: null };
      const answer = await browserGraphql(h.app, browser, SIGN_IN, { email, password });
      expect(answer.body.data).toBeNull();
      expect(answer.body.errors[0]).toMatchObject({ message: 'Email or password is incorrect', extensions: { code: 'UNAUTHENTICATED' } });
      expect(browser.cookie).toBeNull();
    }
    // A person without a password cannot sign in with one.
    const passwordless = await h.user();
    const answer = await browserGraphql(h.app, { cookie: null }, SIGN_IN, { email: passwordless.email, password: 'anything at all' });
    expect(answer.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('without authentication only the public operations run (401 for the rest)', async () => {
    const person = await personWithPassword(h);
    const viewer = await browserGraphql(h.app, { cookie: null }, VIEWER);
    expect(viewer.status).toBe(401);
    expect(viewer.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // A public field beside a private one does not open the private one.
    const mixed = await browserGraphql(
      h.app,
      { cookie: null },
      `mutation { signIn(email: "${person.email}", password: "${person.password}") { id } createApiToken(label: "x") { token } }`,
    );
    expect(mixed.status).toBe(401);
    expect(await h.db.prisma.session.count({ where: { userId: person.id } })).toBe(0);
  });

  it('a first-party persisted document (by documentId) may sign in; an unknown id without its text is refused', async () => {
    const person = await personWithPassword(h);
    const hash = createHash('sha256').update(SIGN_IN).digest('hex');
    const app = createApp({ db: h.db, config: h.config, urls: createUrls(BASE) }, { persistedDocuments: new Map([[hash, SIGN_IN]]) });
    const send = (body: unknown) =>
      app.fetch(
        new Request(`${BASE}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      );
    const signedIn = await send({ documentId: `sha256:${hash}`, variables: { email: person.email, password: person.password } });
    expect((await signedIn.json()).data.signIn.id).toBe(person.id);
    expect(signedIn.headers.getSetCookie()[0]).toMatch(/^lectern_session=lcs_/);
    const unknown = await send({ documentId: 'sha256:0000', variables: {} });
    expect(unknown.status).toBe(401);
  });

  it('rate limits attempts per account and per address (PostgreSQL-backed), even with the right password', async () => {
    const config = { ...h.config, signInLimits: { perAccount: 3, perAddress: 5 } };
    const app = createApp({ db: h.db, config, urls: createUrls(BASE) });
    const person = await personWithPassword(h);
    for (let i = 0; i < 3; i++) {
      const wrong = await browserGraphql(
        app,
        { cookie: null },
        SIGN_IN,
        { email: person.email, password: 'wrong password!' },
        { address: '198.51.100.1' },
      );
      expect(wrong.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    }
    const browser: Browser = { cookie: null };
    const limited = await browserGraphql(
      app,
      browser,
      SIGN_IN,
      { email: person.email, password: person.password },
      { address: '198.51.100.2' },
    );
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0]).toMatchObject({ extensions: { code: 'RATE_LIMITED', retryAfter: expect.any(Number) } });
    expect(limited.body.errors[0].extensions.retryAfter).toBeGreaterThan(0);
    expect(browser.cookie).toBeNull();
    // The count is in the database: another app (another process) on it sees it.
    const other = createApp({ db: h.db, config, urls: createUrls(BASE) });
    expect(
      (
        await browserGraphql(
          other,
          { cookie: null },
          SIGN_IN,
          { email: person.email, password: person.password },
          { address: '198.51.100.3' },
        )
      ).status,
    ).toBe(429);

    // Per address: five attempts on different accounts, then the sixth is refused.
    const someone = await personWithPassword(h);
    for (let i = 0; i < 5; i++)
      await browserGraphql(
        app,
        { cookie: null },
        SIGN_IN,
        { email: `guess${i}@example.com`, password: 'guess guess' },
        { address: '203.0.113.9' },
      );
    const fromThere = await browserGraphql(
      app,
      { cookie: null },
      SIGN_IN,
      { email: someone.email, password: someone.password },
      { address: '203.0.113.9' },
    );
    expect(fromThere.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    // The same account from elsewhere still signs in.
    await signedIn(app, someone.email, someone.password);
  });

  it('sets Secure when the public URL is https, or behind a trusted proxy that says https', async () => {
    const person = await personWithPassword(h);
    const cookieOf = async (config: typeof h.config, headers: Record<string, string> = {}) => {
      const app = createApp({ db: h.db, config, urls: createUrls(BASE) });
      const answer = await browserGraphql(app, { cookie: null }, SIGN_IN, { email: person.email, password: person.password }, { headers });
      return answer.setCookie.find((c) => c.startsWith('lectern_session='))!;
    };
    expect(await cookieOf({ ...h.config, publicUrl: 'https://docs.example' })).toMatch(/; Secure$/);
    expect(await cookieOf({ ...h.config, trustProxy: true }, { 'x-forwarded-proto': 'https' })).toMatch(/; Secure$/);
    expect(await cookieOf({ ...h.config, trustProxy: false }, { 'x-forwarded-proto': 'https' })).not.toMatch(/Secure/);
  });
});

describe('the session cookie', () => {
  it('authenticates /graphql (viewer) but not /v1', async () => {
    const person = await personWithPassword(h);
    const browser = await signedIn(h.app, person.email, person.password);
    const viewer = await browserGraphql(h.app, browser, VIEWER);
    expect(viewer.body).toEqual({
      data: { viewer: { id: person.id, displayName: expect.any(String), email: person.email, photoURL: null } },
    });
    expect(viewer.headers.get('vary')).toMatch(/Cookie/);
    const rest = await h.app.fetch(new Request(`${BASE}/v1/user`, { headers: { cookie: `lectern_session=${browser.cookie}` } }));
    expect(rest.status).toBe(401);
    // A Bearer token works beside the cookie, and wins over it.
    const other = await h.user();
    const both = await browserGraphql(h.app, browser, VIEWER, {}, { headers: { authorization: `Bearer ${other.token}` } });
    expect(both.body.data.viewer.id).toBe(other.id);
  });

  it('CSRF: a simple request with the cookie is refused (403); a JSON POST or the x-lectern-csrf header is accepted', async () => {
    const person = await personWithPassword(h);
    const browser = await signedIn(h.app, person.email, person.password);
    const cookie = `lectern_session=${browser.cookie}`;
    const form = await h.app.fetch(
      new Request(`${BASE}/graphql`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'query=mutation%20%7B%20createApiToken(label%3A%22x%22)%20%7B%20token%20%7D%20%7D',
      }),
    );
    expect(form.status).toBe(403);
    expect((await form.json()).error.message).toMatch(/x-lectern-csrf/);
    const text = await h.app.fetch(
      new Request(`${BASE}/graphql`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'text/plain' },
        body: JSON.stringify({ query: 'mutation { createApiToken(label: "x") { token } }' }),
      }),
    );
    expect(text.status).toBe(403);
    const get = await h.app.fetch(new Request(`${BASE}/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, { headers: { cookie } }));
    expect(get.status).toBe(403);
    expect(await h.db.prisma.apiToken.count({ where: { userId: person.id, label: 'x' } })).toBe(0);

    const withHeader = await h.app.fetch(
      new Request(`${BASE}/graphql?query=${encodeURIComponent('{ viewer { id } }')}`, {
        headers: { cookie, 'x-lectern-csrf': '1', accept: 'application/json' },
      }),
    );
    expect(withHeader.status).toBe(200);
    expect((await withHeader.json()).data.viewer.id).toBe(person.id);
    const json = await browserGraphql(h.app, browser, VIEWER);
    expect(json.body.data.viewer.id).toBe(person.id);
  });

  it('lists the sessions (current marked); a revoked session stops working at once', async () => {
    const person = await personWithPassword(h);
    const laptop = await signedIn(h.app, person.email, person.password);
    const phone = await signedIn(h.app, person.email, person.password);
    const listed = await browserGraphql(h.app, laptop, '{ viewerSessions { id createdAt lastSeenAt expiresAt userAgent current } }');
    expect(listed.body.data.viewerSessions).toHaveLength(2);
    const current = listed.body.data.viewerSessions.find((s: any) => s.current);
    const phoneSession = listed.body.data.viewerSessions.find((s: any) => !s.current);
    expect(current.id).toBe((await h.db.prisma.session.findUniqueOrThrow({ where: { hash: hashToken(laptop.cookie!) } })).id);
    expect(phoneSession.userAgent).toBe('TestBrowser/1.0');

    expect((await browserGraphql(h.app, phone, VIEWER)).status).toBe(200);
    const revoked = await browserGraphql(h.app, laptop, 'mutation($id: ID!) { revokeSession(id: $id) }', { id: phoneSession.id });
    expect(revoked.body).toEqual({ data: { revokeSession: true } });
    expect((await browserGraphql(h.app, phone, VIEWER)).status).toBe(401);
    expect((await browserGraphql(h.app, laptop, VIEWER)).status).toBe(200);
    // Another person's session is not the caller's to revoke.
    const stranger = await personWithPassword(h);
    const theirs = await signedIn(h.app, stranger.email, stranger.password);
    const theirId = (await h.db.prisma.session.findUniqueOrThrow({ where: { hash: hashToken(theirs.cookie!) } })).id;
    const refused = await browserGraphql(h.app, laptop, 'mutation($id: ID!) { revokeSession(id: $id) }', { id: theirId });
    expect(refused.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await browserGraphql(h.app, theirs, VIEWER)).status).toBe(200);
  });

  it('signOut revokes the session and removes the cookie', async () => {
    const person = await personWithPassword(h);
    const browser = await signedIn(h.app, person.email, person.password);
    const kept = browser.cookie!;
    const out = await browserGraphql(h.app, browser, 'mutation { signOut }');
    expect(out.body).toEqual({ data: { signOut: true } });
    expect(out.setCookie.find((c) => c.startsWith('lectern_session='))).toMatch(/^lectern_session=; .*Max-Age=0/);
    expect(browser.cookie).toBeNull();
    expect((await browserGraphql(h.app, { cookie: kept }, VIEWER)).status).toBe(401);
  });

  it('expires after the idle limit and at the absolute limit; lastSeenAt slides at most once a minute', async () => {
    const person = await personWithPassword(h);
    const browser = await signedIn(h.app, person.email, person.password);
    const where = { hash: hashToken(browser.cookie!) };
    const ago = (ms: number) => new Date(Date.now() - ms);

    // Seen 30 s ago: not written again. Seen 2 minutes ago: moved to now.
    await h.db.prisma.session.update({ where, data: { lastSeenAt: ago(30_000) } });
    const before = (await h.db.prisma.session.findUniqueOrThrow({ where })).lastSeenAt;
    expect((await browserGraphql(h.app, browser, VIEWER)).status).toBe(200);
    expect((await h.db.prisma.session.findUniqueOrThrow({ where })).lastSeenAt).toEqual(before);
    await h.db.prisma.session.update({ where, data: { lastSeenAt: ago(120_000) } });
    expect((await browserGraphql(h.app, browser, VIEWER)).status).toBe(200);
    expect((await h.db.prisma.session.findUniqueOrThrow({ where })).lastSeenAt.getTime()).toBeGreaterThan(ago(60_000).getTime());

    // Idle for longer than LECTERN_SESSION_IDLE_DAYS (14): ended.
    await h.db.prisma.session.update({ where, data: { lastSeenAt: ago(14 * 86_400_000 + 60_000) } });
    const idle = await browserGraphql(h.app, { cookie: browser.cookie }, VIEWER);
    expect(idle.status).toBe(401);

    // Seen just now but past its absolute end: ended.
    await h.db.prisma.session.update({ where, data: { lastSeenAt: new Date(), expiresAt: ago(1000) } });
    expect((await browserGraphql(h.app, { cookie: browser.cookie }, VIEWER)).status).toBe(401);
    await h.db.prisma.session.update({ where, data: { expiresAt: new Date(Date.now() + 86_400_000) } });
    expect((await browserGraphql(h.app, { cookie: browser.cookie }, VIEWER)).status).toBe(200);
  });

  it('maintenance forgets sessions that ended over 30 days ago, and only those', async () => {
    const { purgeEndedSessions } = await import('../../src/modules/sessions/index.js');
    const person = await personWithPassword(h);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      await signedIn(h.app, person.email, person.password);
      ids.push((await h.db.prisma.session.findFirstOrThrow({ where: { userId: person.id }, orderBy: { createdAt: 'desc' } })).id);
    }
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000);
    await h.db.prisma.session.update({ where: { id: ids[0] }, data: { revokedAt: daysAgo(31) } });
    await h.db.prisma.session.update({ where: { id: ids[1] }, data: { revokedAt: daysAgo(2) } });
    await h.db.prisma.session.update({ where: { id: ids[2] }, data: { expiresAt: daysAgo(40), lastSeenAt: daysAgo(41) } });
    await purgeEndedSessions({ db: h.db, config: h.config });
    const left = (await h.db.prisma.session.findMany({ where: { userId: person.id }, select: { id: true } })).map((s) => s.id);
    expect(left.sort()).toEqual([ids[1]!, ids[3]!].sort());
  });

  it('an ended session can still sign in again (its stale cookie is replaced)', async () => {
    const person = await personWithPassword(h);
    const browser = await signedIn(h.app, person.email, person.password);
    await h.db.prisma.session.updateMany({ where: { userId: person.id }, data: { revokedAt: new Date() } });
    const again = await browserGraphql(h.app, browser, SIGN_IN, { email: person.email, password: person.password });
    expect(again.body.data.signIn.id).toBe(person.id);
    expect((await browserGraphql(h.app, browser, VIEWER)).status).toBe(200);
  });
});
