import { spawn } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { hashToken } from '../../src/auth/tokens.js';
import { setupHarness, type Harness } from '../support/harness.js';
import { browserGraphql, personWithPassword, SIGN_IN, signedIn, VIEWER, type Browser } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await setupHarness();
});

const CREATE_TOKEN = 'mutation($label: String!) { createApiToken(label: $label) { token apiToken { id label createdAt } } }';
const TOKENS = '{ viewerApiTokens { id label createdAt lastUsedAt } }';
const RESET_LINK = 'mutation($org: ID!, $user: ID!) { createPasswordResetLink(organizationId: $org, userId: $user) { url expiresAt } }';
const RESET = 'mutation($token: String!, $password: String!) { resetPassword(token: $token, password: $password) { id } }';

describe('personal API tokens', () => {
  it('are created with the token shown once, work as Bearer tokens on /v1, and stop working when revoked', async () => {
    const person = await personWithPassword(h);
    const browser = await signedIn(h.app, person.email, person.password);
    const created = await browserGraphql(h.app, browser, CREATE_TOKEN, { label: 'laptop scripts' });
    const { token, apiToken } = created.body.data.createApiToken;
    expect(token).toMatch(/^lct_/);
    expect(apiToken).toMatchObject({ id: expect.any(String), label: 'laptop scripts' });
    expect((await h.db.prisma.apiToken.findUniqueOrThrow({ where: { id: apiToken.id } })).hash).toBe(hashToken(token));

    // Listed without the token; lastUsedAt set once it is used.
    let listed = await browserGraphql(h.app, browser, TOKENS);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(listed.body.data.viewerApiTokens.find((t: any) => t.id === apiToken.id)).toMatchObject({
      label: 'laptop scripts',
      lastUsedAt: null,
    });
    const me = await h.call('GET', '/v1/user', { token });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(person.id);
    listed = await browserGraphql(h.app, browser, TOKENS);
    expect(listed.body.data.viewerApiTokens.find((t: any) => t.id === apiToken.id).lastUsedAt).toEqual(expect.any(String));

    // Another person cannot revoke it; its owner can, and it stops at once.
    const stranger = await personWithPassword(h);
    const theirs = await signedIn(h.app, stranger.email, stranger.password);
    expect(
      (await browserGraphql(h.app, theirs, 'mutation($id: ID!) { revokeApiToken(id: $id) }', { id: apiToken.id })).body.errors[0].extensions
        .code,
    ).toBe('NOT_FOUND');
    expect((await h.call('GET', '/v1/user', { token })).status).toBe(200);
    const revoked = await browserGraphql(h.app, browser, 'mutation($id: ID!) { revokeApiToken(id: $id) }', { id: apiToken.id });
    expect(revoked.body).toEqual({ data: { revokeApiToken: true } });
    expect((await h.call('GET', '/v1/user', { token })).status).toBe(401);
  });

  it('are refused an empty label (400 naming the field)', async () => {
    const person = await personWithPassword(h);
    const answer = await h.graphql(person.token, CREATE_TOKEN, { label: '  ' });
    expect(answer.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^label: /), extensions: { code: 'BAD_REQUEST' } });
  });
});

describe('password links and changes', () => {
  it('an admin makes a one-time "set your password" link for an invited member; it signs in once and only once', async () => {
    const admin = await h.owner();
    const invited = await h.call('POST', `/v1/orgs/${admin.orgId}/invites`, {
      token: admin.token,
      body: { emails: ['newcomer@example.com'], role: 'read' },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBeLessThan(300);
    const newcomer = await h.db.prisma.user.findUniqueOrThrow({ where: { email: 'newcomer@example.com' } });

    const link = await h.graphql(admin.token, RESET_LINK, { org: admin.orgId, user: newcomer.id });
    const { url, expiresAt } = link.body.data.createPasswordResetLink;
    expect(url).toMatch(/^http:\/\/lectern\.test\/app\/reset-password\?token=lpl_/);
    expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
    expect((await h.db.prisma.passwordLink.findFirstOrThrow({ where: { userId: newcomer.id } })).purpose).toBe('set');
    const token = new URL(url).searchParams.get('token')!;

    const browser: Browser = { cookie: null };
    const reset = await browserGraphql(h.app, browser, RESET, { token, password: 'my own password' });
    expect(reset.body).toEqual({ data: { resetPassword: { id: newcomer.id } } });
    expect((await browserGraphql(h.app, browser, VIEWER)).body.data.viewer.id).toBe(newcomer.id);
    // Used up.
    const again = await browserGraphql(h.app, { cookie: null }, RESET, { token, password: 'another password' });
    expect(again.body.errors[0]).toMatchObject({ message: expect.stringMatching(/^token: /), extensions: { code: 'BAD_REQUEST' } });
    await signedIn(h.app, 'newcomer@example.com', 'my own password');
  });

  it('only admins of the organization make links, for its members; an expired link fails', async () => {
    const { owner, reader, outsider, orgId } = await h.world('Links');
    expect((await h.graphql(reader.token, RESET_LINK, { org: orgId, user: owner.id })).body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await h.graphql(owner.token, RESET_LINK, { org: orgId, user: outsider.id })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    // A member who also belongs to an organization this admin does not administer.
    const elsewhere = await h.owner('Elsewhere');
    await h.addMember(elsewhere.orgId, reader.id, 'read');
    expect((await h.graphql(owner.token, RESET_LINK, { org: orgId, user: reader.id })).body.errors[0].extensions.code).toBe('FORBIDDEN');

    const editor = await h.user('Editor');
    await h.addMember(orgId, editor.id, 'edit');
    const link = await h.graphql(owner.token, RESET_LINK, { org: orgId, user: editor.id });
    const token = new URL(link.body.data.createPasswordResetLink.url).searchParams.get('token')!;
    await h.db.prisma.passwordLink.updateMany({ where: { hash: hashToken(token) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(
      (await browserGraphql(h.app, { cookie: null }, RESET, { token, password: 'too late anyway' })).body.errors[0].extensions.code,
    ).toBe('BAD_REQUEST');
  });

  it('changePassword needs the current password; the other sessions end, this one stays', async () => {
    const person = await personWithPassword(h);
    const here = await signedIn(h.app, person.email, person.password);
    const there = await signedIn(h.app, person.email, person.password);
    const change = 'mutation($current: String, $next: String!) { changePassword(currentPassword: $current, newPassword: $next) }';
    expect((await browserGraphql(h.app, here, change, { next: 'a brand new one' })).body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^currentPassword: /),
    });
    expect(
      (await browserGraphql(h.app, here, change, { current: 'not the password', next: 'a brand new one' })).body.errors[0].extensions.code,
    ).toBe('BAD_REQUEST');
    expect((await browserGraphql(h.app, here, change, { current: person.password, next: 'short' })).body.errors[0]).toMatchObject({
      message: expect.stringMatching(/^newPassword: /),
    });
    expect((await browserGraphql(h.app, here, change, { current: person.password, next: 'a brand new one' })).body).toEqual({
      data: { changePassword: true },
    });
    expect((await browserGraphql(h.app, here, VIEWER)).status).toBe(200);
    expect((await browserGraphql(h.app, there, VIEWER)).status).toBe(401);
    const old = await browserGraphql(h.app, { cookie: null }, SIGN_IN, { email: person.email, password: person.password });
    expect(old.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    await signedIn(h.app, person.email, 'a brand new one');
  });
});

describe('lectern user … --password-stdin', () => {
  const BIN = path.resolve(import.meta.dirname, '../../bin/lectern.js');
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const server = inject('dbServer');
    const database = (await h.db.pool.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
    const url = server.host!.startsWith('/')
      ? `postgres://postgres@localhost:${server.port}/${database}?host=${server.host}`
      : `postgres://${server.user}${server.password ? `:${server.password}` : ''}@${server.host}:${server.port}/${database}`;
    env = { ...process.env, DATABASE_URL: url };
    delete env.npm_lifecycle_event;
  });
  /** Runs the CLI with `input` piped to its standard input. */
  const cli = (args: string[], input: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(input);
    });

  it('user create reads the password from stdin (JSON output unchanged, no password in it); user password changes it and ends sessions', async () => {
    const created = await cli(
      ['user', 'create', '--email', 'piped@example.com', '--name', 'Piped', '--password-stdin'],
      'piped password\n',
    );
    expect(created.code, created.stderr).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out).toMatchObject({ user: { id: expect.any(String), email: 'piped@example.com' }, token: expect.stringMatching(/^lct_/) });
    expect(created.stdout + created.stderr).not.toContain('piped password');
    // The trailing newline is not part of the password.
    const browser = await signedIn(h.app, 'piped@example.com', 'piped password');

    const changed = await cli(['user', 'password', '--user', out.user.id, '--password-stdin'], 'replaced password');
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ user: { id: out.user.id }, password: 'set', sessionsEnded: 1 });
    expect((await browserGraphql(h.app, browser, VIEWER)).status).toBe(401);
    await signedIn(h.app, 'piped@example.com', 'replaced password');

    const short = await cli(['user', 'password', '--user', out.user.id, '--password-stdin'], 'short');
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/at least 8 characters/);
    const missing = await cli(['user', 'password', '--user', out.user.id], '');
    expect(missing.code).toBe(2);
  });
});
