import { useState } from 'react';
import { useMutation } from 'urql';
import { graphql } from '../../../gql';
import { formatDate, Outcome } from '../../../lib/ui';

const SubmitReview = graphql(`
  mutation SubmitChangeRequestReviewFromApp($spaceId: ID!, $changeRequestId: String!, $input: SubmitChangeRequestReviewInput!) {
    submitChangeRequestReview(spaceId: $spaceId, changeRequestId: $changeRequestId, input: $input) { id status updatedAt }
  }
`);

const STATUS_LABELS: Record<string, string> = { approved: 'Approved', 'changes-requested': 'Changes requested' };

interface Review {
  id: string;
  status: string;
  outdated: boolean;
  updatedAt: string;
  reviewer: { id: string; displayName: string };
  comment?: { id: string; body: { markdown?: string | null } } | null;
}

/** The reviews submitted, latest first: who, approved or changes requested, their comment; outdated ones say so. */
export function ReviewList({ reviews }: { reviews: Review[] }) {
  return (
    <section aria-labelledby="cr-reviews-heading">
      <h2 id="cr-reviews-heading">Reviews</h2>
      {reviews.length ? (
        <ul aria-label="Reviews">
          {reviews.map((r) => (
            <li key={r.id}>
              <strong>{r.reviewer.displayName}</strong>: {STATUS_LABELS[r.status] ?? r.status}
              {r.outdated && <span className="badge">Outdated</span>} <span className="muted">{formatDate(r.updatedAt)}</span>
              {/* Shown as text: a comment is the reviewer's Markdown, never HTML. */}
              {r.comment?.body.markdown && <blockquote style={{ whiteSpace: 'pre-line' }}>{r.comment.body.markdown}</blockquote>}
            </li>
          ))}
        </ul>
      ) : (
        <p>No reviews yet.</p>
      )}
    </section>
  );
}

/** The viewer's review: approve or request changes, with an optional comment (a new submission replaces their last). */
export function ReviewForm({
  spaceId,
  changeRequestId,
  onSubmitted,
}: {
  spaceId: string;
  changeRequestId: string;
  onSubmitted: () => void;
}) {
  const [status, setStatus] = useState<'approved' | 'changes-requested'>('approved');
  const [comment, setComment] = useState('');
  const [submitted, submit] = useMutation(SubmitReview);
  const [done, setDone] = useState<string | null>(null);

  const send = async (event: React.FormEvent) => {
    event.preventDefault();
    setDone(null);
    const input = { status, comment: comment.trim() ? { markdown: comment.trim() } : undefined };
    const result = await submit({ spaceId, changeRequestId, input });
    if (result.data) {
      setDone(status === 'approved' ? 'Review submitted: approved.' : 'Review submitted: changes requested.');
      setComment('');
      onSubmitted();
    }
  };

  return (
    <section aria-labelledby="cr-review-form-heading">
      <h2 id="cr-review-form-heading">Your review</h2>
      <form className="stack" onSubmit={send}>
        <fieldset>
          <legend>Verdict</legend>
          <label>
            <input type="radio" name="review-status" checked={status === 'approved'} onChange={() => setStatus('approved')} /> Approve
          </label>{' '}
          <label>
            <input
              type="radio"
              name="review-status"
              checked={status === 'changes-requested'}
              onChange={() => setStatus('changes-requested')}
            />{' '}
            Request changes
          </label>
        </fieldset>
        <div className="field">
          <label htmlFor="review-comment">Review comment</label>
          <textarea id="review-comment" rows={3} value={comment} onChange={(e) => setComment(e.target.value)} />
        </div>
        <p>
          <button type="submit" disabled={submitted.fetching} aria-busy={submitted.fetching}>
            Submit review
          </button>
        </p>
      </form>
      <Outcome error={submitted.error} done={done} />
    </section>
  );
}
