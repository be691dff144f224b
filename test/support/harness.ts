import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { issueToken } from '../../src/auth/tokens.js';
import { readConfig, type Config } from '../../src/config.js';
import { connect, type Database } from '../../src/db/database.js';
import { createOrganization } from '../../src/modules/orgs/service.js';
import { createUser } from '../../src/modules/users/service.js';
import { createUrls } from '../../src/urls.js';
import { newId } from '../../src/ids.js';
import { assertMatchesSpec, assertRequestMatchesSpec, documentedHeaders } from './openapi.js';

export const BASE = 'http://lectern.test';

export interface TestUser {
  id: string;
  email: string;
  token: string;
}

export interface Harness {
  db: Database;
  app: App;
  config: Config;
  /** Calls the app in-process (the same fetch handler the HTTP server runs). */
  call(
    method: string,
    path: string,
    /** `unsized`: no Content-Length (as a streamed upload sends it), so /graphql never takes its direct lane. */
    opts?: { token?: string | null; body?: unknown; rawBody?: string; unsized?: boolean },
  ): Promise<{ status: number; body: any; headers: Headers }>;
  /** Operations answered with a success through `rest()`, for "every operation was exercised" checks. */
  coveredOperations: Set<string>;
  /** A REST call whose body must match the official schema of `operationId` for its status. */
  rest(
    operationId: string,
    method: string,
    path: string,
    opts?: { token?: string | null; body?: unknown },
  ): Promise<{ status: number; body: any }>;
  graphql(token: string, query: string, variables?: Record<string, unknown>): Promise<{ status: number; body: any }>;
  user(name?: string, email?: string): Promise<TestUser>;
  /** A user and an organization they administer. */
  owner(title?: string): Promise<TestUser & { orgId: string }>;
  /** A fresh organization with its admin owner, a reader, a creator, a guest and an outsider. */
  world(
    title?: string,
    opts?: { creator?: boolean },
  ): Promise<{
    owner: TestUser & { orgId: string };
    orgId: string;
    reader: TestUser;
    creator: TestUser;
    guest: TestUser;
    outsider: TestUser;
  }>;
  /** Adds a user to an organization with a role (null: guest). */
  addMember(orgId: string, userId: string, role: string | null): Promise<void>;
  /** Everything in the tables that matter, to prove a refused request changed nothing. */
  snapshot(): Promise<string>;
}

/** What `h.world()` gives: an organization's admin owner, a reader, a creator, a guest and an outsider. */
export type World = Awaited<ReturnType<Harness['world']>>;

/** A fresh database (copy of the migrated template) and the app on it, for one test file. */
export async function setupHarness(): Promise<Harness> {
  const server = inject('dbServer');
  const template = inject('templateDatabase');
  const database = `${template.replace('tpl', 'test')}_${newId(8).toLowerCase()}`;
  const admin = new pg.Client(server);
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}" TEMPLATE "${template}"`);
  await admin.end();

  const db = connect({ ...server, database }, async () => {
    const c = new pg.Client(server);
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await c.end();
  });
  // Rate limiting is off here (files make thousands of calls with one token); test/platform/limits.test.ts turns it on.
  const config: Config = { ...readConfig({}), publicUrl: BASE, rateLimit: { limit: 0, windowSeconds: 60 } };
  const app = createApp({ db, config, urls: createUrls(BASE) });
  afterAll(() => db.close());

  const call: Harness['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = {};
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    // As an HTTP client sends it: a small /graphql query of a known token then takes the direct lane (src/graphql/direct-query.ts).
    if (body !== undefined && !opts.unsized) headers['content-length'] = String(Buffer.byteLength(body));
    const response = await app.fetch(new Request(`${BASE}${path}`, { method, headers, body }));
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  };

  let counter = 0;
  const harness: Harness = {
    db,
    app,
    config,
    call,
    coveredOperations: new Set<string>(),
    async rest(operationId, method, path, opts) {
      const result = await call(method, path, opts);
      assertMatchesSpec(operationId, result.status, result.body);
      // A request the server accepted must be one the official descriptions allow.
      if (result.status < 300 && opts?.body !== undefined) assertRequestMatchesSpec(operationId, opts.body);
      // Documented headers are part of the contract: a creation's Location is where the resource lives.
      if (documentedHeaders(operationId, result.status).includes('location')) {
        const location = result.headers.get('location');
        const expected: string | undefined = result.body?.urls?.location;
        if (!location || (expected ? location !== expected : !location.startsWith(`${BASE}/v1/`))) {
          throw new Error(
            `${operationId} ${result.status}: Location header ${location} is not the new resource's URL (${expected ?? 'an API URL'})`,
          );
        }
      }
      if (result.status < 300) harness.coveredOperations.add(operationId);
      return result;
    },
    async graphql(token, query, variables) {
      return call('POST', '/graphql', { token, body: { query, variables } });
    },
    async user(name = `User ${++counter}`, email = `user${counter}-${newId(6).toLowerCase()}@example.com`) {
      const user = await createUser(db.prisma, { email, name });
      return { id: user.id, email: user.email, token: await issueToken(db.prisma, user.id) };
    },
    async owner(title = 'Acme Docs') {
      const user = await harness.user();
      const org = await createOrganization(db.prisma, { title, ownerId: user.id });
      return { ...user, orgId: org.id };
    },
    async world(title = 'Acme Docs', opts = {}) {
      const owner = await harness.owner(title);
      const [reader, creator, guest, outsider] = [
        await harness.user('Reader'),
        await harness.user('Creator'),
        await harness.user('Guest'),
        await harness.user('Outsider'),
      ];
      await harness.addMember(owner.orgId, reader.id, 'read');
      // `creator: false` leaves the creator outside the organization (for files that count members).
      if (opts.creator !== false) await harness.addMember(owner.orgId, creator.id, 'create');
      await harness.addMember(owner.orgId, guest.id, null);
      return { owner, orgId: owner.orgId, reader, creator, guest, outsider };
    },
    async addMember(orgId, userId, role) {
      await db.prisma.member.create({ data: { organizationId: orgId, userId, role: role as never } });
    },
    async snapshot() {
      const [orgs, members, spaces, collections, invites, revisions] = await Promise.all([
        db.prisma.organization.findMany({ orderBy: { id: 'asc' } }),
        db.prisma.member.findMany({ orderBy: [{ organizationId: 'asc' }, { userId: 'asc' }] }),
        db.prisma.space.findMany({ orderBy: { id: 'asc' } }),
        db.prisma.collection.findMany({ orderBy: { id: 'asc' } }),
        db.prisma.inviteLink.findMany({ orderBy: { id: 'asc' } }),
        db.prisma.revision.findMany({ orderBy: { id: 'asc' } }),
      ]);
      return JSON.stringify({ orgs, members, spaces, collections, invites, revisions });
    },
  };
  return harness;
}
