/** ChangeRequest.mergeability: the merge rules checked as the merge checks them, for the caller (setup in ./fixtures.ts). */
import { beforeAll, describe, expect, it } from 'vitest';
import { createCr, h, merge, newSpace, owner, patchSpace, review, reviewer, editor, setupChangeRequests, write } from './fixtures.js';

beforeAll(setupChangeRequests);

const QUERY = `query ($s: ID!, $n: String!) {
  space(id: $s) { changeRequest(id: $n) { mergeability { met bypass rules { rule met reason } } } }
}`;
const mergeability = async (spaceId: string, cr: string, user: { token: string } = owner) => {
  const res = await h.graphql(user.token, QUERY, { s: spaceId, n: cr });
  expect(res.body.errors).toBeUndefined();
  return res.body.data.space.changeRequest.mergeability;
};

describe('ChangeRequest.mergeability', () => {
  it('lists no rule and is met when the space has none', async () => {
    const space = await newSpace();
    const cr = await createCr(space.id);
    expect(await mergeability(space.id, cr.id)).toEqual({ met: true, bypass: false, rules: [] });
  });

  it('says which rule is not met and why, agrees with the merge, and follows an approval of the head', async () => {
    const space = await newSpace();
    const rules = [{ rule: 'require_at_least_one_review' }, { rule: 'require_change_request_subject' }];
    await patchSpace(space.id, { mergeRules: { type: 'rules', rules } });
    const cr = await createCr(space.id, { subject: 'Titled' });
    await write(space.id, cr.id, [{ operation: 'insert_page', title: 'A', document: { markdown: '' } }]);
    expect(await mergeability(space.id, cr.id)).toEqual({
      met: false,
      bypass: false,
      rules: [
        { rule: 'require_at_least_one_review', met: false, reason: 'Merge rules: at least one approving review is needed' },
        { rule: 'require_change_request_subject', met: true, reason: null },
      ],
    });
    const refused = await merge(space.id, cr.id);
    expect(refused.status).toBe(412);
    expect(JSON.stringify(refused.body)).toContain('at least one approving review is needed');

    expect((await review(space.id, cr.id, { status: 'approved' }, reviewer)).status).toBe(201);
    expect((await mergeability(space.id, cr.id)).met).toBe(true);
    // A new head is not the one approved: the rule is not met again.
    await write(space.id, cr.id, [{ operation: 'insert_page', title: 'B', document: { markdown: '' } }]);
    expect((await mergeability(space.id, cr.id)).met).toBe(false);
  });

  it('is met for a caller listed in allow_bypass, and only for them', async () => {
    const space = await newSpace();
    const rules = [{ rule: 'require_agent_review' }, { rule: 'allow_bypass', users: [owner.id] }];
    await patchSpace(space.id, { mergeRules: { type: 'rules', rules } });
    const cr = await createCr(space.id);
    const forOwner = await mergeability(space.id, cr.id);
    expect(forOwner).toMatchObject({ met: true, bypass: true, rules: [{ rule: 'require_agent_review', met: false }] });
    expect(await mergeability(space.id, cr.id, editor)).toMatchObject({ met: false, bypass: false });
  });
});
