import { beforeAll, describe, expect, it } from 'vitest';
import { documentFromMarkdown } from '../../src/document/index.js';
import { newId } from '../../src/ids.js';
import { BASE, setupHarness, type Harness, type TestUser } from '../support/harness.js';

/** GET and PUT /orgs/{id}/agent-instructions: works (official schema), bad input, no rights. */
type Owner = TestUser & { orgId: string };

let h: Harness;
let owner: Owner;
let reader: TestUser;
let creator: TestUser;
let guest: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  h = await setupHarness();
  ({ owner, reader, creator, guest, outsider } = await h.world('Agents'));
});

const path = (org: { orgId: string } = owner) => `/v1/orgs/${org.orgId}/agent-instructions`;
const instructions = documentFromMarkdown(
  '# Tone\n\nAnswer **briefly** and link to the [API reference](https://docs.example.com/api).\n\n- Never promise dates.\n- Prefer examples.',
);

describe('GET /orgs/{id}/agent-instructions', () => {
  it('answers an empty document before anyone wrote instructions', async () => {
    const res = await h.rest('getOrganizationAgentInstructions', 'GET', path(), { token: reader.token });
    expect(res.status).toBe(200);
    const org = await h.db.prisma.organization.findUniqueOrThrow({ where: { id: owner.orgId } });
    expect(res.body).toEqual({
      object: 'agent-instructions',
      instructions: { object: 'document', data: expect.any(Object), nodes: [] },
      updatedAt: org.createdAt.toISOString(),
      updatedBy: '',
      urls: { location: `${BASE}/v1/orgs/${owner.orgId}/agent-instructions` },
    });
  });

  it('refuses callers without rights: 401, 404 for outsiders and unknown organizations, 403 for guests', async () => {
    expect((await h.call('GET', path(), { token: null })).status).toBe(401);
    expect((await h.call('GET', path(), { token: outsider.token })).status).toBe(404);
    expect((await h.call('GET', `/v1/orgs/${newId()}/agent-instructions`, { token: owner.token })).status).toBe(404);
    expect((await h.call('GET', path(), { token: guest.token })).status).toBe(403);
  });
});

describe('PUT /orgs/{id}/agent-instructions', () => {
  it('lets an admin replace the instructions, which members then read', async () => {
    const before = Date.now();
    const res = await h.rest('updateOrganizationAgentInstructions', 'PUT', path(), { token: owner.token, body: { instructions } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'agent-instructions', instructions, updatedBy: owner.id });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(before - 1000);
    const read = await h.rest('getOrganizationAgentInstructions', 'GET', path(), { token: creator.token });
    expect(read.body).toEqual(res.body);
    // A second write replaces the first.
    const second = await h.rest('updateOrganizationAgentInstructions', 'PUT', path(), {
      token: owner.token,
      body: { instructions: documentFromMarkdown('Be concise.') },
    });
    expect(second.body.instructions.nodes).toHaveLength(1);
    expect((await h.rest('getOrganizationAgentInstructions', 'GET', path(), { token: reader.token })).body.instructions).toEqual(
      second.body.instructions,
    );
    // The instructions of one organization are not another's.
    const other = (await h.owner('Other')) as Owner;
    expect((await h.rest('getOrganizationAgentInstructions', 'GET', path(other), { token: other.token })).body.instructions.nodes).toEqual(
      [],
    );
  });

  it('refuses what is not a rich-text document with 400 naming the field, changing nothing', async () => {
    const row = () => h.db.prisma.agentInstructions.findUnique({ where: { organizationId: owner.orgId } });
    const before = await row();
    const cases: [unknown, string][] = [
      [{}, 'instructions'],
      [{ instructions: null }, 'instructions'],
      [{ instructions: 'Be nice' }, 'instructions'],
      [{ instructions: { object: 'document', nodes: [] } }, 'instructions.data'],
      [{ instructions: { object: 'document', data: {}, nodes: {} } }, 'instructions.nodes'],
      [{ instructions: { object: 'document', data: {}, nodes: [{ object: 'text', leaves: [] }] } }, 'instructions.nodes[0].object'],
      [{ instructions: { object: 'document', data: {}, nodes: [{ object: 'block', nodes: [] }] } }, 'instructions.nodes[0].type'],
      [
        {
          instructions: {
            object: 'document',
            data: {},
            nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 1, marks: [] }] }] }],
          },
        },
        'instructions.nodes[0].nodes[0].leaves[0].text',
      ],
      [
        {
          instructions: {
            object: 'document',
            data: {},
            nodes: [
              {
                object: 'block',
                type: 'paragraph',
                nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x'.repeat(200_001), marks: [] }] }],
              },
            ],
          },
        },
        'instructions',
      ],
      [{ instructions, colour: 'red' }, 'colour'],
    ];
    for (const [body, field] of cases) {
      const res = await h.call('PUT', path(), { token: owner.token, body });
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(res.body.error.message).toContain(field);
    }
    expect(await row()).toEqual(before);
  });

  it('is for admins only: 401, 404 for outsiders, 403 for other members', async () => {
    const row = () => h.db.prisma.agentInstructions.findUnique({ where: { organizationId: owner.orgId } });
    const before = await row();
    const body = { instructions: documentFromMarkdown('Hijacked.') };
    expect((await h.call('PUT', path(), { token: null, body })).status).toBe(401);
    expect((await h.call('PUT', path(), { token: outsider.token, body })).status).toBe(404);
    for (const member of [reader, creator, guest]) expect((await h.call('PUT', path(), { token: member.token, body })).status).toBe(403);
    expect(await row()).toEqual(before);
  });
});
