import { beforeAll, describe, expect, it } from 'vitest';
import { setupHarness, type Harness, type TestUser, type World } from '../support/harness.js';
import { encodeGlobalId, MAX_NODE_IDS } from '../../src/graphql/node.js';

/**
 * Relay global object identification: `globalId` on every registered type, `node(id:)` and
 * `nodes(ids:)`. A node is answered exactly when its direct field answers it, for every caller.
 */
let h: Harness;
let w: World;
let otherAdmin: TestUser & { orgId: string };
/** One object of each node type, with the direct query that reads it. */
let objects: { name: string; type: string; query: string; variables: Record<string, string>; pick: (data: any) => any }[];

const NODE_FIELDS = /* GraphQL */ `__typename globalId
  ... on Organization { id title } ... on User { id displayName } ... on Space { id title }
  ... on Collection { id title } ... on ChangeRequest { id number } ... on Site { id title } ... on Team { id title }`;
const NODE = `query Node($id: ID!) { node(id: $id) { ${NODE_FIELDS} } }`;
const NODES = `query Nodes($ids: [ID!]!) { nodes(ids: $ids) { ${NODE_FIELDS} } }`;

async function post(token: string, path: string, body: unknown, method = 'POST') {
  const res = await h.call(method, `/v1${path}`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world('Node Org');
  otherAdmin = await h.owner('Other Org');
  const { owner, orgId, guest } = w;
  const collection = await post(owner.token, `/orgs/${orgId}/collections`, { title: 'Guides' });
  const space = await post(owner.token, `/orgs/${orgId}/spaces`, { title: 'Handbook', parent: collection.id });
  const cr = await post(owner.token, `/spaces/${space.id}/change-requests`, { subject: 'Edits' });
  const site = await post(owner.token, `/orgs/${orgId}/sites`, { title: 'Docs' });
  const team = await post(owner.token, `/orgs/${orgId}/teams`, { title: 'Writers', members: [guest.id] }, 'PUT');
  const hiddenTeam = await post(owner.token, `/orgs/${orgId}/teams`, { title: 'Admins' }, 'PUT');
  const deleted = await post(owner.token, `/orgs/${orgId}/spaces`, { title: 'Old' });
  expect((await h.call('DELETE', `/v1/spaces/${deleted.id}`, { token: owner.token })).status).toBe(205);
  const fields = (extra: string) => `id globalId ${extra}`;
  objects = [
    {
      name: 'organization',
      type: 'Organization',
      query: `query($a: ID!) { organization(id: $a) { ${fields('title')} } }`,
      variables: { a: orgId },
      pick: (d) => d.organization,
    },
    {
      name: 'user',
      type: 'User',
      query: `query($a: ID!) { user(id: $a) { ${fields('displayName')} } }`,
      variables: { a: owner.id },
      pick: (d) => d.user,
    },
    {
      name: 'space',
      type: 'Space',
      query: `query($a: ID!) { space(id: $a) { ${fields('title')} } }`,
      variables: { a: space.id },
      pick: (d) => d.space,
    },
    {
      name: 'deleted space',
      type: 'Space',
      query: `query($a: ID!) { space(id: $a) { ${fields('title')} } }`,
      variables: { a: deleted.id },
      pick: (d) => d.space,
    },
    {
      name: 'collection',
      type: 'Collection',
      query: `query($a: ID!) { collection(id: $a) { ${fields('title')} } }`,
      variables: { a: collection.id },
      pick: (d) => d.collection,
    },
    {
      name: 'change request',
      type: 'ChangeRequest',
      query: `query($a: ID!, $b: String!) { space(id: $a) { changeRequest(id: $b) { ${fields('number')} } } }`,
      variables: { a: space.id, b: cr.id },
      pick: (d) => d.space?.changeRequest,
    },
    {
      name: 'site',
      type: 'Site',
      query: `query($a: ID!, $b: ID!) { site(organizationId: $a, id: $b) { ${fields('title')} } }`,
      variables: { a: orgId, b: site.id },
      pick: (d) => d.site,
    },
    {
      name: 'team',
      type: 'Team',
      query: `query($a: ID!, $b: ID!) { organization(id: $a) { team(id: $b) { ${fields('title')} } } }`,
      variables: { a: orgId, b: team.id },
      pick: (d) => d.organization?.team,
    },
    {
      name: 'team the guest is not in',
      type: 'Team',
      query: `query($a: ID!, $b: ID!) { organization(id: $a) { team(id: $b) { ${fields('title')} } } }`,
      variables: { a: orgId, b: hiddenTeam.id },
      pick: (d) => d.organization?.team,
    },
  ];
});

/** The object as its direct field answers the caller, or null when that field refuses it. */
async function direct(token: string, o: (typeof objects)[number]) {
  const res = await h.graphql(token, o.query, o.variables);
  // yoga answers a refused field with its error's HTTP status (403/404) and a null data.
  if (res.body.errors) {
    expect(res.body.errors.map((e: any) => e.extensions.code)).toEqual([expect.stringMatching(/^(NOT_FOUND|FORBIDDEN)$/)]);
    return null;
  }
  return o.pick(res.body.data);
}

async function node(token: string, id: string) {
  const res = await h.graphql(token, NODE, { id });
  expect(res.body.errors, id.slice(0, 40)).toBeUndefined();
  expect(res.status).toBe(200);
  return res.body.data.node;
}

async function globalIdOf(o: (typeof objects)[number]) {
  const seen = await direct(w.owner.token, o);
  expect(seen, o.name).not.toBeNull();
  return seen.globalId as string;
}

describe('globalId and node(id:)', () => {
  it('round-trips every registered type (the owner sees them all) and leaves `id` as it was', async () => {
    const seenTypes = new Set<string>();
    for (const o of objects) {
      const seen = await direct(w.owner.token, o);
      const found = await node(w.owner.token, seen.globalId);
      expect(found, o.name).toMatchObject({ __typename: o.type, globalId: seen.globalId, id: seen.id });
      expect(seen.id).toBe(Object.values(o.variables).at(-1));
      // The global id is stable: the same for the same object in another request and for another caller.
      expect((await direct(w.owner.token, o)).globalId).toBe(seen.globalId);
      seenTypes.add(o.type);
    }
    expect([...seenTypes].sort()).toEqual(['ChangeRequest', 'Collection', 'Organization', 'Site', 'Space', 'Team', 'User']);
    const ids = new Set(await Promise.all(objects.map(globalIdOf)));
    expect(ids.size).toBe(objects.length);
  });

  it('answers exactly what the direct field answers, for each member kind, an outsider and another organization’s admin', async () => {
    const callers = { reader: w.reader, creator: w.creator, guest: w.guest, outsider: w.outsider, otherAdmin };
    const answered: Record<string, string[]> = {};
    for (const [who, caller] of Object.entries(callers)) {
      for (const o of objects) {
        const expected = await direct(caller.token, o);
        const found = await node(caller.token, await globalIdOf(o));
        if (expected === null) expect(found, `${who}: ${o.name}`).toBeNull();
        else {
          expect(found, `${who}: ${o.name}`).toMatchObject({ __typename: o.type, ...expected });
          (answered[who] ??= []).push(o.name);
        }
      }
    }
    // The cases are real: some objects are seen and some refused (not everything null or everything found).
    expect(answered.guest).toEqual(expect.arrayContaining(['organization', 'site', 'team']));
    expect(answered.guest).not.toContain('team the guest is not in');
    expect(answered.guest).not.toContain('space');
    expect(answered.reader).toEqual(expect.arrayContaining(['space', 'change request', 'collection']));
    expect(answered.reader).not.toContain('deleted space');
    expect(answered.outsider).toBeUndefined();
    expect(answered.otherAdmin).toBeUndefined();
  });

  it('does not tell another organization whether an object exists: forged ids answer null like unknown ones', async () => {
    const site = objects.find((o) => o.type === 'Site')!;
    const team = objects.find((o) => o.name === 'team')!;
    const other = otherAdmin.orgId;
    const forged = [
      encodeGlobalId('Site', [other, site.variables.b!]), // a real site, named under the caller's own organization
      encodeGlobalId('Team', [other, team.variables.b!]),
      encodeGlobalId('Site', [other, 'no-such-site']),
      encodeGlobalId('Space', ['no-such-space']),
      encodeGlobalId('Organization', [w.orgId]),
    ];
    for (const id of forged) expect(await node(otherAdmin.token, id), id).toBeNull();
    // A change request by number through the direct field is still only one node: its id.
    const cr = objects.find((o) => o.type === 'ChangeRequest')!;
    expect(await node(w.owner.token, encodeGlobalId('ChangeRequest', [cr.variables.a!, '1']))).toBeNull();
  });

  it('answers null for malformed ids (decided: such an id names no object; no error)', async () => {
    const spaceId = objects.find((o) => o.name === 'space')!.variables.a!;
    const malformed = [
      '',
      'not an id',
      '!!!!',
      spaceId, // a type's own id is not a global id
      Buffer.from('Space').toString('base64url'),
      Buffer.from('Nope:abc').toString('base64url'),
      Buffer.from(`Space:${spaceId}:extra`).toString('base64url'),
      Buffer.from(`Space:${spaceId}`).toString('base64'), // padded: not the canonical spelling
      `${encodeGlobalId('Space', [spaceId])}A`,
      'A'.repeat(10_000),
    ];
    for (const id of malformed) expect(await node(w.owner.token, id), id.slice(0, 40)).toBeNull();
    expect(await node(w.owner.token, encodeGlobalId('Space', [spaceId]))).toMatchObject({ __typename: 'Space', id: spaceId });
  });
});

describe('nodes(ids:)', () => {
  it('answers in the order asked, null where the caller sees nothing, mixed types in one call', async () => {
    const ids = await Promise.all(objects.map(globalIdOf));
    const asked = [ids[0]!, 'garbage', ...ids.slice(1), ids[0]!];
    const res = await h.graphql(w.guest.token, NODES, { ids: asked });
    expect(res.body.errors).toBeUndefined();
    const expected = [
      await direct(w.guest.token, objects[0]!),
      null,
      ...(await Promise.all(objects.slice(1).map((o) => direct(w.guest.token, o)))),
      await direct(w.guest.token, objects[0]!),
    ];
    expect(res.body.data.nodes).toHaveLength(asked.length);
    res.body.data.nodes.forEach((n: any, i: number) => {
      if (expected[i] === null) expect(n, String(i)).toBeNull();
      else expect(n, String(i)).toMatchObject(expected[i]);
    });
  });

  it('issues the same number of SQL statements for 2 and for 12 objects of each batched type', async () => {
    const { owner, orgId } = w;
    const make = async (n: number) => {
      const made: string[] = [];
      for (let i = 0; i < n; i++) {
        const collection = await post(owner.token, `/orgs/${orgId}/collections`, { title: `C${n}.${i}` });
        const space = await post(owner.token, `/orgs/${orgId}/spaces`, { title: `S${n}.${i}`, parent: collection.id });
        const site = await post(owner.token, `/orgs/${orgId}/sites`, { title: `Site ${n}.${i}` });
        const team = await post(owner.token, `/orgs/${orgId}/teams`, { title: `T${n}.${i}` }, 'PUT');
        made.push(
          encodeGlobalId('Collection', [collection.id]),
          encodeGlobalId('Space', [space.id]),
          encodeGlobalId('Site', [orgId, site.id]),
          encodeGlobalId('Team', [orgId, team.id]),
        );
      }
      return made;
    };
    const count = async (token: string, ids: string[]) => {
      const before = h.db.statements.count;
      const res = await h.graphql(token, NODES, { ids });
      expect(res.body.errors).toBeUndefined();
      return { statements: h.db.statements.count - before, nodes: res.body.data.nodes };
    };
    const [small, large] = [await make(2), await make(12)];
    for (const caller of [owner, w.reader]) {
      const a = await count(caller.token, small);
      const b = await count(caller.token, large);
      // The owner sees all 48; a reader at least the sites and teams (every member reads those).
      expect(b.nodes.filter(Boolean).length).toBeGreaterThanOrEqual(caller === owner ? 48 : 24);
      expect(b.statements).toBe(a.statements);
    }
  });

  it(`refuses more than ${MAX_NODE_IDS} ids with a 400 naming ids`, async () => {
    const res = await h.graphql(w.owner.token, NODES, { ids: Array.from({ length: MAX_NODE_IDS + 1 }, (_, i) => `x${i}`) });
    expect(res.body.errors?.[0]).toMatchObject({ message: expect.stringMatching(/^ids: /), extensions: { code: 'BAD_REQUEST' } });
  });
});
