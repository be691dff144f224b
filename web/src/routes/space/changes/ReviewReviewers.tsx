import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../../gql';
import { formatDate, Outcome } from '../../../lib/ui';

const RequestReviewers = graphql(`
  mutation RequestChangeRequestReviewersFromApp($spaceId: ID!, $changeRequestId: String!, $users: [String!]!) {
    requestChangeRequestReviewers(spaceId: $spaceId, changeRequestId: $changeRequestId, input: { users: $users }) {
      users { createdAt user { id displayName } }
    }
  }
`);
const RemoveReviewer = graphql(`
  mutation RemoveChangeRequestReviewerFromApp($spaceId: ID!, $changeRequestId: String!, $userId: String!) {
    removeChangeRequestReviewer(spaceId: $spaceId, changeRequestId: $changeRequestId, userId: $userId)
  }
`);

interface Props {
  spaceId: string;
  changeRequestId: string;
  requested: { createdAt: string; user: { id: string; displayName: string }; requestedBy: { displayName: string } }[];
  /** Members who may be asked (those with a role: guests are left out); empty when the viewer cannot list members. */
  members: { role?: string | null; user: { id: string; displayName: string } }[];
  /** The author or an editor, while the change request is open: may ask and withdraw. */
  canManage: boolean;
  authorId: string;
  onChanged: () => void;
}

/** Who is asked to review, and (for its author and editors) asking another member or withdrawing a request. */
export function ReviewReviewers({ spaceId, changeRequestId, requested, members, canManage, authorId, onChanged }: Props) {
  const [chosen, setChosen] = useState('');
  const [asked, ask] = useMutation(RequestReviewers);
  const [removed, remove] = useMutation(RemoveReviewer);
  const [done, setDone] = useState<string | null>(null);
  const requestedIds = new Set(requested.map((r) => r.user.id));
  const candidates = members.filter((m) => m.role && m.user.id !== authorId && !requestedIds.has(m.user.id));

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    if (!chosen) return;
    setDone(null);
    const result = await ask({ spaceId, changeRequestId, users: [chosen] });
    if (result.data) {
      const name = members.find((m) => m.user.id === chosen)?.user.displayName ?? chosen;
      setDone(`Review requested from ${name}.`);
      setChosen('');
      onChanged();
    }
  };
  const withdraw = async (user: { id: string; displayName: string }) => {
    setDone(null);
    const result = await remove({ spaceId, changeRequestId, userId: user.id });
    if (result.data) {
      setDone(`Review request to ${user.displayName} withdrawn.`);
      onChanged();
    }
  };

  return (
    <section aria-labelledby="cr-reviewers-heading">
      <h2 id="cr-reviewers-heading">Requested reviewers</h2>
      {requested.length ? (
        <ul aria-label="Requested reviewers">
          {requested.map((r) => (
            <li key={r.user.id}>
              {r.user.displayName}{' '}
              <span className="muted">
                (asked by {r.requestedBy.displayName}, {formatDate(r.createdAt)})
              </span>
              {canManage && (
                <>
                  {' '}
                  <button type="button" onClick={() => withdraw(r.user)} disabled={removed.fetching}>
                    Withdraw request to {r.user.displayName}
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p>No one is asked to review yet.</p>
      )}
      {canManage && (
        <form className="inline" onSubmit={submit}>
          <div className="field">
            <label htmlFor="cr-reviewer">Reviewer</label>
            <select id="cr-reviewer" value={chosen} onChange={(e) => setChosen(e.target.value)}>
              <option value="">Choose a member…</option>
              {candidates.map((m) => (
                <option key={m.user.id} value={m.user.id}>
                  {m.user.displayName}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" disabled={!chosen || asked.fetching} aria-busy={asked.fetching}>
            Request review
          </button>
        </form>
      )}
      <Outcome error={asked.error ?? removed.error} done={done} />
    </section>
  );
}
