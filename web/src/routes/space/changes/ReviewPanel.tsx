import { useEffect } from 'react';
import { useSubscription } from 'urql';
import { graphql } from '../../../gql';
import { Loaded } from '../../../lib/ui';
import { useMemberNames, useReviewPanel, withNames } from './reviewData';
import { descriptionText, ReviewDetails } from './ReviewDetails';
import { ReviewReviewers } from './ReviewReviewers';
import { ReviewForm, ReviewList } from './Reviews';

const ReviewChangeRequestEvents = graphql(`
  subscription ReviewChangeRequestEvents($spaceId: ID!, $changeRequestId: ID!) {
    changeRequestEvents(spaceId: $spaceId, changeRequestId: $changeRequestId) { action changeRequest { id revision status } }
  }
`);

const RULE_LABELS: Record<string, string> = {
  require_at_least_one_review: 'At least one approving review',
  require_all_reviews_approved: 'Every review approves',
  require_agent_review: 'An agent review',
  require_up_to_date_change_request: 'Up to date with main',
  require_change_request_subject: 'A subject',
  require_change_request_description: 'A description',
  require_specific_reviewers: 'Approval from each named reviewer',
  require_one_of_specific_reviewers: 'Approval from one of the named reviewers',
  custom: 'A custom rule',
};

type Mergeability = { met: boolean; bypass: boolean; rules: { rule: string; met: boolean; reason?: string | null }[] };

/** The space's merge rules, each met or not (and why), as the merge would check them for the viewer. */
function MergeRules({ mergeability, names }: { mergeability: Mergeability; names: Map<string, string> }) {
  return (
    <section aria-labelledby="cr-rules-heading">
      <h2 id="cr-rules-heading">Merge rules</h2>
      {mergeability.rules.length ? (
        <ul aria-label="Merge rules">
          {mergeability.rules.map((r) => (
            <li key={r.rule}>
              {RULE_LABELS[r.rule] ?? r.rule}:{' '}
              {r.met ? 'met' : `not met — ${withNames(r.reason ?? '', names).replace(/^Merge rules: /, '')}`}
            </li>
          ))}
        </ul>
      ) : (
        <p>This space has no merge rules.</p>
      )}
      {mergeability.bypass && <p>You may merge without meeting them (you are listed to bypass the rules).</p>}
    </section>
  );
}

/** The description, for those who may not change it (as text: it is the author's words, never HTML). */
function Description({ text }: { text: string }) {
  return (
    <section aria-labelledby="cr-description-heading">
      <h2 id="cr-description-heading">Description</h2>
      {text ? <p style={{ whiteSpace: 'pre-line' }}>{text}</p> : <p className="muted">No description.</p>}
    </section>
  );
}

/**
 * The review side of a change request: its subject and description, the reviewers asked, the
 * reviews and the viewer's own, and the merge rules with whether they are met.
 */
export function ReviewPanel({ spaceId, number }: { spaceId: string; number: string }) {
  const [{ data, error }, refetch] = useReviewPanel(spaceId, number);
  const { names, members } = useMemberNames(data?.space.organization);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  // Someone else edits, renames, archives or merges it: the rules are checked again (an approval
  // counts for the head it approved).
  const [live] = useSubscription({ query: ReviewChangeRequestEvents, variables: { spaceId, changeRequestId: number } });
  useEffect(() => {
    if (live.data) refetch({ requestPolicy: 'network-only' });
  }, [live.data, refetch]);
  return (
    <Loaded data={data} error={error}>
      {({ viewer, space }) => {
        const cr = space.changeRequest;
        const open = cr.status === 'open' || cr.status === 'draft';
        const isAuthor = cr.createdBy.id === viewer.id;
        return (
          <>
            {isAuthor || space.permissions.edit ? (
              <ReviewDetails key={cr.id} spaceId={spaceId} changeRequest={cr} onChanged={reload} />
            ) : (
              <Description text={descriptionText(cr.description)} />
            )}
            <ReviewReviewers
              spaceId={spaceId}
              changeRequestId={cr.id}
              requested={cr.requestedReviewerList.items}
              members={members}
              canManage={open && (isAuthor || space.permissions.edit)}
              authorId={cr.createdBy.id}
              onChanged={reload}
            />
            <ReviewList reviews={cr.reviewList.items} />
            {open && space.permissions.review && <ReviewForm spaceId={spaceId} changeRequestId={cr.id} onSubmitted={reload} />}
            {open && <MergeRules mergeability={cr.mergeability} names={names} />}
          </>
        );
      }}
    </Loaded>
  );
}
