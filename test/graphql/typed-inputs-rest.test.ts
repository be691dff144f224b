/**
 * REST answers to good and bad bodies of the routes whose GraphQL inputs carry computed content
 * sources, merge rules, invites, team memberships, an organization's default content and template
 * params. The answers were recorded while those inputs were still JSON: typing them must leave
 * every answer as it was (status and body), so a bad body is still the same 400 naming its field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { drainJobs } from '../../src/jobs/queue.js';
import { OPENAPI_JOB } from '../../src/modules/openapi/jobs.js';
import { createUrls } from '../../src/urls.js';
import { BASE, setupHarness, type Harness, type World } from '../support/harness.js';

let h: Harness;
let w: World;
let spaceId: string;

const SPEC = {
  openapi: '3.1.0',
  info: { title: 'Pets', version: '1.0.0' },
  tags: [{ name: 'pets', description: 'Everything about pets' }],
  paths: { '/pets': { get: { tags: ['pets'], summary: 'List pets', responses: { '200': { description: 'The pets' } } } } },
  components: { schemas: { Pet: { type: 'object', properties: { id: { type: 'integer' } } } } },
};
const source = (more: Record<string, unknown> = {}) => ({
  type: 'builtin:openapi',
  props: { models: true },
  dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } } },
  ...more,
});

beforeAll(async () => {
  h = await setupHarness();
  w = await h.world();
  const spec = await h.call('POST', `/v1/orgs/${w.orgId}/openapi`, {
    token: w.owner.token,
    body: { slug: 'pets', source: { text: JSON.stringify(SPEC) } },
  });
  expect(spec.status, JSON.stringify(spec.body)).toBe(201);
  await drainJobs({ db: h.db, config: h.config, urls: createUrls(BASE) }, [OPENAPI_JOB]);
  const space = await h.call('POST', `/v1/orgs/${w.orgId}/spaces`, { token: w.owner.token, body: { title: 'API docs' } });
  expect(space.status).toBe(201);
  spaceId = space.body.id;
});

/** Each body's answer: the status and, for an error, its message; for a success, what `pick` keeps. */
async function answers(method: string, path: string, bodies: unknown[], pick: (body: any) => unknown = () => 'ok') {
  const out: unknown[] = [];
  for (const body of bodies) {
    const res = await h.call(method, path, { token: w.owner.token, body });
    out.push(res.status >= 400 ? [res.status, res.body.error?.message] : [res.status, pick(res.body)]);
  }
  // Ids differ from run to run: the reader's is named.
  return JSON.parse(JSON.stringify(out).replaceAll(w.reader.id, 'READER')) as unknown[];
}

describe('computed content sources', () => {
  it('getComputedRevision and getComputedDocument', async () => {
    const revision = await answers(
      'POST',
      `/v1/spaces/${spaceId}/content/computed/revision`,
      [
        { source: source(), seed: 'api' },
        { source: 'x', seed: 's' },
        { source: source({ type: 'integration:x:y' }), seed: 's' },
        { source: source({ type: 5 }), seed: 's' },
        { source: source({ props: { models: 'yes' } }), seed: 's' },
        { source: source({ props: { models: true, extra: 1 } }), seed: 's' },
        { source: source({ extra: 1 }), seed: 's' },
        { source: { type: 'builtin:openapi', props: { models: true } }, seed: 's' },
        { source: source({ dependencies: { spec: { ref: { kind: 'space', spec: 'pets' } } } }), seed: 's' },
        { source: source({ dependencies: { spec: { ref: { kind: 'openapi', spec: 5 } } } }), seed: 's' },
        { source: source({ dependencies: { spec: 'pets' } }), seed: 's' },
        { source: source({ dependencies: { spec: { ref: { kind: 'openapi', spec: 'pets' } }, other: {} } }), seed: 's' },
      ],
      (body) => [Object.keys(body), body.pages.map((p: any) => p.id)],
    );
    expect(revision).toMatchInlineSnapshot(`
      [
        [
          200,
          [
            [
              "pages",
              "files",
              "reusableContents",
            ],
            [
              "api-pets",
              "api-models",
            ],
          ],
        ],
        [
          400,
          "source: must be an object",
        ],
        [
          400,
          "source.type: must be builtin:openapi (the computed source Lectern computes)",
        ],
        [
          400,
          "source.type: must be builtin:openapi (the computed source Lectern computes)",
        ],
        [
          400,
          "source.props.models: must be true or false",
        ],
        [
          400,
          "source.props.extra: is not a field of this computed source",
        ],
        [
          400,
          "source.extra: is not a field of this computed source",
        ],
        [
          400,
          "source.dependencies: must be an object",
        ],
        [
          400,
          "source.dependencies.spec.ref.kind: must be openapi",
        ],
        [
          400,
          "source.dependencies.spec.ref.spec: must be the slug of one of the organization's OpenAPI specs",
        ],
        [
          400,
          "source.dependencies.spec: must be an object",
        ],
        [
          400,
          "source.dependencies.other: is not a field of this computed source",
        ],
      ]
    `);
    const document = await answers(
      'POST',
      `/v1/spaces/${spaceId}/content/computed/document`,
      [
        { source: source({ props: { doc: 'operations', page: 'pets' } }), seed: 'd' },
        { source: source({ props: { doc: 'operations' } }), seed: 'd' },
        { source: source({ props: 'x' }), seed: 'd' },
        { source: source({ props: { doc: 'models' }, type: 'x' }), seed: 'd' },
      ],
      (body) => body.object,
    );
    expect(document).toMatchInlineSnapshot(`
      [
        [
          200,
          "document",
        ],
        [
          400,
          "source.props.page: is required: the tag whose operations to compute",
        ],
        [
          400,
          "source.props.doc: must be one of operations, models, operation, tag, info",
        ],
        [
          400,
          "source.type: must be builtin:openapi (the computed source Lectern computes)",
        ],
      ]
    `);
  });

  it('getComputedRevision: the whole answer', async () => {
    const res = await h.call('POST', `/v1/spaces/${spaceId}/content/computed/revision`, {
      token: w.owner.token,
      body: { source: source(), seed: 'whole' },
    });
    expect(res.status).toBe(200);
    const text = JSON.stringify(res.body)
      .replaceAll(spaceId, 'SPACE')
      .replaceAll(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
      .replaceAll(/"documentId":"[^"]+"/g, '"documentId":"DOC"');
    expect(text).toMatchInlineSnapshot(
      `"{"pages":[{"id":"whole-pets","title":"pets","createdAt":"TIME","updatedAt":"TIME","kind":"sheet","type":"document","urls":{"app":"http://lectern.test/app/s/SPACE/pets"},"slug":"pets","path":"pets","description":"Everything about pets","documentId":"DOC","pages":[],"layout":{"width":"default","cover":false,"coverSize":"full","coverMask":"none","title":true,"description":true,"tableOfContents":true,"outline":true,"pagination":true,"metadata":true,"tags":true,"actions":true,"anchors":true},"tags":[],"markdown":"Everything about pets\\n\\n## List pets\\n\\n\`GET /pets\`\\n\\n| Status | Description |\\n| --- | --- |\\n| 200 | The pets |"},{"id":"whole-models","title":"Models","createdAt":"TIME","updatedAt":"TIME","kind":"sheet","type":"document","urls":{"app":"http://lectern.test/app/s/SPACE/models"},"slug":"models","path":"models","documentId":"DOC","pages":[],"layout":{"width":"default","cover":false,"coverSize":"full","coverMask":"none","title":true,"description":true,"tableOfContents":true,"outline":true,"pagination":true,"metadata":true,"tags":true,"actions":true,"anchors":true},"tags":[],"markdown":"## Pet\\n\\n| Property | Type | Required | Description |\\n| --- | --- | --- | --- |\\n| \`id\` | integer | no |  |"}],"files":[],"reusableContents":[]}"`,
    );
  });

  it('insert_page of a computed page', async () => {
    const change = (computed: unknown) => ({ changes: [{ operation: 'insert_page', type: 'computed', title: 'API', computed }] });
    const written = await answers(
      'POST',
      `/v1/spaces/${spaceId}/content`,
      [
        change('x'),
        change(source({ extra: 1 })),
        change(source({ props: {} })),
        change(source({ dependencies: { spec: 'pets' } })),
        change(source({ type: ['builtin:openapi'] })),
        change(source()),
      ],
      (body) => Object.keys(body),
    );
    expect(written).toMatchInlineSnapshot(`
      [
        [
          400,
          "changes[0].computed: must be an object",
        ],
        [
          400,
          "changes[0].computed.extra: is not a field of this computed source",
        ],
        [
          400,
          "changes[0].computed.props.models: must be true or false",
        ],
        [
          400,
          "changes[0].computed.dependencies.spec: must be an object",
        ],
        [
          400,
          "changes[0].computed.type: must be builtin:openapi (the computed source Lectern computes)",
        ],
        [
          200,
          [
            "revision",
            "changes",
            "insertedFiles",
          ],
        ],
      ]
    `);
    const raw = await h.call('GET', `/v1/spaces/${spaceId}/content/pages?computed=false`, { token: w.owner.token });
    expect(raw.body.pages.find((p: any) => p.type === 'computed').computed).toEqual(source());
  });

  it('GraphQL: a computed revision from a typed source', async () => {
    const res = await h.graphql(
      w.owner.token,
      `query($spaceId: ID!, $source: ComputedContentSourceInput!) { space(id: $spaceId) { content {
        computedRevision(source: $source, seed: "g") { pages { id title type } files { id } reusableContents { id } }
      } } }`,
      { spaceId, source: source() },
    );
    const pages = [
      { id: 'g-pets', title: 'pets', type: 'document' },
      { id: 'g-models', title: 'Models', type: 'document' },
    ];
    expect(res.body).toEqual({ data: { space: { content: { computedRevision: { pages, files: [], reusableContents: [] } } } } });
    const bad = await h.graphql(
      w.owner.token,
      `query($spaceId: ID!, $source: ComputedContentSourceInput!) { space(id: $spaceId) { content { computedRevision(source: $source, seed: "g") { files { id } } } } }`,
      { spaceId, source: source({ extra: 1 }) },
    );
    expect(bad.body.errors[0].message).toMatch(/Field "extra" is not defined by type "ComputedContentSourceInput"/);
  });
});

describe('merge rules', () => {
  const bodies = [
    'x',
    { type: 'bogus' },
    { type: 5 },
    { type: 'inherit' },
    { type: 'rules' },
    { type: 'rules', rules: 'x' },
    { type: 'rules', rules: [{}] },
    { type: 'rules', rules: ['x'] },
    { type: 'rules', rules: [{ rule: 'nope' }] },
    { type: 'rules', rules: [{ rule: 'allow_bypass' }] },
    { type: 'rules', rules: [{ rule: 'allow_bypass', users: [5] }] },
    { type: 'rules', rules: [{ rule: 'custom' }] },
    { type: 'rules', rules: [{ rule: 'custom', expression: 'x'.repeat(1025) }] },
    { type: 'rules', rules: [{ rule: 'require_at_least_one_review', users: ['u'], extra: 1 }] },
    { type: 'none', rules: [] },
    {
      type: 'rules',
      rules: [
        { rule: 'require_specific_reviewers', users: ['u1'] },
        { rule: 'custom', expression: 'true' },
        { rule: 'require_agent_review' },
      ],
    },
    { type: 'none' },
  ];
  it('of an organization', async () => {
    const org = await answers(
      'PATCH',
      `/v1/orgs/${w.orgId}`,
      bodies.map((mergeRules) => ({ mergeRules })),
      (body) => body.mergeRules,
    );
    expect(org).toMatchInlineSnapshot(`
      [
        [
          400,
          "mergeRules: must be an object with a type",
        ],
        [
          400,
          "mergeRules.type: "bogus" is not one of none, rules",
        ],
        [
          400,
          "mergeRules: must be an object with a type",
        ],
        [
          400,
          "mergeRules.type: inherit is only for spaces",
        ],
        [
          400,
          "mergeRules.rules: must be an array",
        ],
        [
          400,
          "mergeRules.rules: must be an array",
        ],
        [
          400,
          "mergeRules.rules[0].rule: is required",
        ],
        [
          400,
          "mergeRules.rules[0].rule: is required",
        ],
        [
          400,
          "mergeRules.rules[0].rule: "nope" is not a known merge rule",
        ],
        [
          400,
          "mergeRules.rules[0].users: must be an array of user ids for allow_bypass",
        ],
        [
          400,
          "mergeRules.rules[0].users: must be an array of user ids for allow_bypass",
        ],
        [
          400,
          "mergeRules.rules[0].expression: is required for a custom rule",
        ],
        [
          400,
          "mergeRules.rules[0].expression: must be at most 1024 characters",
        ],
        [
          200,
          {
            "rules": [
              {
                "rule": "require_at_least_one_review",
              },
            ],
            "type": "rules",
          },
        ],
        [
          200,
          {
            "type": "none",
          },
        ],
        [
          200,
          {
            "rules": [
              {
                "rule": "require_specific_reviewers",
                "users": [
                  "u1",
                ],
              },
              {
                "expression": "true",
                "rule": "custom",
              },
              {
                "rule": "require_agent_review",
              },
            ],
            "type": "rules",
          },
        ],
        [
          200,
          {
            "type": "none",
          },
        ],
      ]
    `);
  });
  it('of a space', async () => {
    const space = await answers(
      'PATCH',
      `/v1/spaces/${spaceId}`,
      [...bodies, { type: 'inherit', rules: [] }].map((mergeRules) => ({ mergeRules })),
      (body) => body.mergeRules,
    );
    expect(space).toMatchInlineSnapshot(`
      [
        [
          400,
          "mergeRules: must be an object with a type",
        ],
        [
          400,
          "mergeRules.type: "bogus" is not one of inherit, none, rules",
        ],
        [
          400,
          "mergeRules: must be an object with a type",
        ],
        [
          200,
          {
            "type": "inherit",
          },
        ],
        [
          400,
          "mergeRules.rules: must be an array",
        ],
        [
          400,
          "mergeRules.rules: must be an array",
        ],
        [
          400,
          "mergeRules.rules[0].rule: is required",
        ],
        [
          400,
          "mergeRules.rules[0].rule: is required",
        ],
        [
          400,
          "mergeRules.rules[0].rule: "nope" is not a known merge rule",
        ],
        [
          400,
          "mergeRules.rules[0].users: must be an array of user ids for allow_bypass",
        ],
        [
          400,
          "mergeRules.rules[0].users: must be an array of user ids for allow_bypass",
        ],
        [
          400,
          "mergeRules.rules[0].expression: is required for a custom rule",
        ],
        [
          400,
          "mergeRules.rules[0].expression: must be at most 1024 characters",
        ],
        [
          200,
          {
            "rules": [
              {
                "rule": "require_at_least_one_review",
              },
            ],
            "type": "rules",
          },
        ],
        [
          200,
          {
            "type": "none",
          },
        ],
        [
          200,
          {
            "rules": [
              {
                "rule": "require_specific_reviewers",
                "users": [
                  "u1",
                ],
              },
              {
                "expression": "true",
                "rule": "custom",
              },
              {
                "rule": "require_agent_review",
              },
            ],
            "type": "rules",
          },
        ],
        [
          200,
          {
            "type": "none",
          },
        ],
        [
          200,
          {
            "type": "inherit",
          },
        ],
      ]
    `);
  });
  it('GraphQL: written through MergeRulesInput, read as the MergeRules union', async () => {
    const res = await h.graphql(
      w.owner.token,
      `mutation($id: ID!, $input: UpdateSpaceInput!) { updateSpace(id: $id, input: $input) { mergeRules {
        ... on MergeRulesList { type rules { ... on MergeRuleUsers { rule users } ... on MergeRuleCustom { rule expression } } }
      } } }`,
      {
        id: spaceId,
        input: {
          mergeRules: {
            type: 'rules',
            rules: [
              { rule: 'allow_bypass', users: ['u1'] },
              { rule: 'custom', expression: 'true' },
            ],
          },
        },
      },
    );
    expect(res.body).toEqual({
      data: {
        updateSpace: {
          mergeRules: {
            type: 'rules',
            rules: [
              { rule: 'allow_bypass', users: ['u1'] },
              { rule: 'custom', expression: 'true' },
            ],
          },
        },
      },
    });
    const bad = await h.graphql(
      w.owner.token,
      `mutation($id: ID!, $input: UpdateSpaceInput!) { updateSpace(id: $id, input: $input) { id } }`,
      { id: spaceId, input: { mergeRules: { type: 'rules', rules: [{ rule: 'allow_bypass' }] } } },
    );
    expect(bad.body.errors[0].message).toBe('mergeRules.rules[0].users: must be an array of user ids for allow_bypass');
  });
});

describe('invites, team memberships and default content', () => {
  it('inviteUsersToOrganization', async () => {
    const invited = await answers(
      'POST',
      `/v1/orgs/${w.orgId}/invites`,
      [
        {},
        { emails: 'a@example.com' },
        { emails: [] },
        { emails: ['not-an-email'] },
        { emails: [5] },
        { emails: [null] },
        { emails: [{ email: 'a@example.com' }] },
        { emails: [{ email: 'a@example.com', role: 'boss' }] },
        { emails: [{ email: 'a@example.com', role: 'read', extra: 1 }] },
        { emails: [{ email: 5, role: 'read' }] },
        { emails: [{ role: 'read' }] },
        { emails: ['new1@example.com', { email: 'new2@example.com', role: 'edit' }, { email: 'new3@example.com', role: null }] },
      ],
      (body) => Object.keys(body),
    );
    // GraphQL's own refusals (no emails, a null entry) name the input type, InviteeInput (JSON before).
    expect(invited).toMatchInlineSnapshot(`
      [
        [
          400,
          "body: Field "emails" of required type "[InviteeInput!]!" was not provided.",
        ],
        [
          200,
          [
            "users",
            "invited",
          ],
        ],
        [
          400,
          "emails: must list at least one email",
        ],
        [
          400,
          "emails[0]: must be an email address or { email, role }",
        ],
        [
          400,
          "emails[0]: must be an email address or { email, role }",
        ],
        [
          400,
          "emails[0]: Expected non-nullable type "InviteeInput!" not to be null.",
        ],
        [
          400,
          "emails[0].role: is required (a role, or null for a guest)",
        ],
        [
          400,
          "emails[0].role: must be a role (admin, create, review, edit, comment, read) or null",
        ],
        [
          400,
          "emails[0].extra: is not a known field",
        ],
        [
          400,
          "emails[0]: must be an email address or { email, role }",
        ],
        [
          400,
          "emails[0]: must be an email address or { email, role }",
        ],
        [
          200,
          [
            "users",
            "invited",
          ],
        ],
      ]
    `);
  });

  it('updateMembersInOrganizationTeam', async () => {
    const team = await h.call('PUT', `/v1/orgs/${w.orgId}/teams`, { token: w.owner.token, body: { title: 'Writers' } });
    expect(team.status, JSON.stringify(team.body)).toBeLessThan(300);
    const members = await answers(
      'PUT',
      `/v1/orgs/${w.orgId}/teams/${team.body.id}/members`,
      [
        { memberships: 'x' },
        { memberships: [] },
        { memberships: { [w.reader.id]: 'owner' } },
        { memberships: { [w.reader.id]: { role: 'boss' } } },
        { memberships: { [w.reader.id]: {} } },
        { memberships: { nobody: { role: 'member' } } },
        { memberships: { [w.reader.id]: { role: 'owner', extra: 1 } } },
        { memberships: { [w.reader.id]: { role: 'owner' } } },
        { memberships: null },
      ],
      (body) => body,
    );
    expect(members).toMatchInlineSnapshot(`
      [
        [
          400,
          "memberships: must be an object",
        ],
        [
          400,
          "memberships: must be an object",
        ],
        [
          400,
          "memberships.READER: must be an object",
        ],
        [
          400,
          "memberships.READER.role: must be owner or member",
        ],
        [
          400,
          "memberships.READER.role: must be owner or member",
        ],
        [
          400,
          "memberships.nobody: is not a member of this organization",
        ],
        [
          204,
          null,
        ],
        [
          204,
          null,
        ],
        [
          204,
          null,
        ],
      ]
    `);
    const listed = await h.call('GET', `/v1/orgs/${w.orgId}/teams/${team.body.id}/members`, { token: w.owner.token });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.items.map((m: any) => [m.organization.id === w.reader.id, m.team.role])).toEqual([[true, 'owner']]);
  });

  it('defaultContent of updateOrganizationById', async () => {
    const site = await h.call('POST', `/v1/orgs/${w.orgId}/sites`, { token: w.owner.token, body: { title: 'Docs' } });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    const org = await answers(
      'PATCH',
      `/v1/orgs/${w.orgId}`,
      [
        { defaultContent: 'x' },
        { defaultContent: { type: 'space', site: site.body.id } },
        { defaultContent: { type: 'site' } },
        { defaultContent: { type: 'site', site: 5 } },
        { defaultContent: { type: 'site', site: site.body.id, extra: 1 } },
        { defaultContent: { type: 'site', site: site.body.id } },
        { defaultContent: null },
      ],
      (body) => body.defaultContent ?? 'absent',
    );
    expect(org.map((a: any) => JSON.stringify(a).replaceAll(site.body.id, 'SITE'))).toMatchInlineSnapshot(`
      [
        "[400,"defaultContent: must be an object"]",
        "[400,"defaultContent: must be { type: \\"site\\", site: <site id> } or null"]",
        "[400,"defaultContent: must be { type: \\"site\\", site: <site id> } or null"]",
        "[400,"defaultContent: must be { type: \\"site\\", site: <site id> } or null"]",
        "[200,{"type":"site","site":"SITE"}]",
        "[200,{"type":"site","site":"SITE"}]",
        "[200,"absent"]",
      ]
    `);
  });
});

describe('GraphQL: invitees, team memberships and default content typed', () => {
  it('takes an invitee without a role as the default role, with a role as that role', async () => {
    const res = await h.graphql(
      w.owner.token,
      `mutation($id: ID!, $input: InviteUsersInput!) { inviteUsersToOrganization(organizationId: $id, input: $input) { invited } }`,
      { id: w.orgId, input: { emails: [{ email: 'gq1@example.com' }, { email: 'gq2@example.com', role: 'edit' }], role: 'comment' } },
    );
    expect(res.body).toEqual({ data: { inviteUsersToOrganization: { invited: 2 } } });
    const members = await h.call('GET', `/v1/orgs/${w.orgId}/members?limit=100`, { token: w.owner.token });
    const roleOf = (email: string) => members.body.items.find((m: any) => m.user.email === email)?.role;
    expect([roleOf('gq1@example.com'), roleOf('gq2@example.com')]).toEqual(['comment', 'edit']);
  });

  it('sets team roles from TeamMembershipInput entries and the default content from its input', async () => {
    const team = await h.call('PUT', `/v1/orgs/${w.orgId}/teams`, { token: w.owner.token, body: { title: 'Typed' } });
    const res = await h.graphql(
      w.owner.token,
      `mutation($o: ID!, $t: ID!, $input: UpdateTeamMembersInput!) { updateTeamMembers(organizationId: $o, teamId: $t, input: $input) }`,
      { o: w.orgId, t: team.body.id, input: { memberships: [{ user: w.reader.id, role: 'owner' }] } },
    );
    expect(res.body).toEqual({ data: { updateTeamMembers: true } });
    const listed = await h.call('GET', `/v1/orgs/${w.orgId}/teams/${team.body.id}/members`, { token: w.owner.token });
    expect(listed.body.items.map((m: any) => [m.organization.id === w.reader.id, m.team.role])).toEqual([[true, 'owner']]);

    const site = await h.call('POST', `/v1/orgs/${w.orgId}/sites`, { token: w.owner.token, body: { title: 'Typed' } });
    const org = await h.graphql(
      w.owner.token,
      `mutation($id: ID!, $input: UpdateOrganizationInput!) { updateOrganization(id: $id, input: $input) { defaultContent { type site } } }`,
      { id: w.orgId, input: { defaultContent: { type: 'site', site: site.body.id } } },
    );
    expect(org.body).toEqual({ data: { updateOrganization: { defaultContent: { type: 'site', site: site.body.id } } } });
  });
});

describe('template params', () => {
  it('applyTemplateToSpace', async () => {
    const applied = await answers('POST', `/v1/spaces/${spaceId}/content/template`, [
      { id: 'getting-started', params: 'x' },
      { id: 'getting-started', params: { contentRefs: 'x' } },
      { id: 'getting-started', params: { contentRefs: { a: 'x' } } },
      { id: 'getting-started', params: { contentRefs: { a: { kind: 'bogus' } } } },
      { id: 'getting-started', params: { other: 1 } },
      { id: 'getting-started', params: { contentRefs: { a: { kind: 'url', url: 'https://example.com' } } } },
      { id: 'getting-started', params: null },
    ]);
    expect(applied).toMatchInlineSnapshot(`
      [
        [
          400,
          "params: must be an object",
        ],
        [
          400,
          "params.contentRefs: must be an object",
        ],
        [
          201,
          "ok",
        ],
        [
          201,
          "ok",
        ],
        [
          201,
          "ok",
        ],
        [
          201,
          "ok",
        ],
        [
          201,
          "ok",
        ],
      ]
    `);
  });
});

describe('an OpenAPI spec version content', () => {
  it('getLatestOpenAPISpecVersionContent: the filesystem key for key, in order', async () => {
    const res = await h.call('GET', `/v1/orgs/${w.orgId}/openapi/pets/versions/latest/content`, { token: w.owner.token });
    expect(res.status).toBe(200);
    // The answer is the stored filesystem as PostgreSQL gives it back (jsonb's key order), as it always was.
    const [stored] = await h.db.prisma.openAPISpecVersion.findMany({
      where: { spec: { organizationId: w.orgId, slug: 'pets' } },
      select: { filesystem: true },
    });
    expect(JSON.stringify(res.body.filesystem)).toBe(JSON.stringify(stored!.filesystem));
    expect(Object.keys(res.body.filesystem)).toEqual(['files', 'title', 'version', 'apiVersion', 'entrypoint', 'specification']);
  });
});
