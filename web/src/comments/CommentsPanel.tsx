import { useCallback, useEffect, useId, useState } from 'react';
import { useQuery, useSubscription } from 'urql';
import type { CommentThreadFieldsFragment } from '../gql/graphql';
import { errorMessage } from '../lib/client';
import { type CommentScope, useCommentActions } from './actions';
import { findBlock, type PageBlock } from './blocks';
import { ChangeRequestPageComments, CommentEvents, MentionableMembers, SpacePageComments } from './documents';
import { type Mentionable, MentionTextarea } from './MentionTextarea';
import { ActionError, Thread } from './Thread';

type Status = 'open' | 'resolved';

export interface BlockSelection {
  /** The page's blocks as shown now. */
  blocks: PageBlock[];
  /** The block a new comment goes on (null: the whole page). */
  selected: string | null;
  select: (key: string | null) => void;
  /** The thread whose block is highlighted. */
  active: string | null;
  activate: (commentId: string | null, node: string | null) => void;
}

/**
 * The comments of one page, beside it: a space's (its main content) or a change request's
 * (`changeRequest`, its id and number). Threads come and go live: every comment event of the place
 * reads the list again, so someone else's comment or reply shows up without a reload.
 */
export function CommentsPanel({
  spaceId,
  changeRequest,
  pageId,
  selection,
}: {
  spaceId: string;
  changeRequest: { id: string; number: number } | null;
  pageId: string;
  selection: BlockSelection;
}) {
  const [status, setStatus] = useState<Status>('open');
  const [space, refetchSpace] = useQuery({
    query: SpacePageComments,
    variables: { spaceId, page: pageId, status },
    pause: !!changeRequest,
  });
  const [change, refetchChange] = useQuery({
    query: ChangeRequestPageComments,
    variables: { spaceId, changeRequest: String(changeRequest?.number ?? ''), page: pageId, status },
    pause: !changeRequest,
  });
  const refetch = useCallback(
    () => (changeRequest ? refetchChange : refetchSpace)({ requestPolicy: 'network-only' }),
    [changeRequest, refetchChange, refetchSpace],
  );
  const [live] = useSubscription({ query: CommentEvents, variables: { spaceId, changeRequestId: changeRequest?.id ?? null } });
  useEffect(() => {
    if (live.data) refetch();
  }, [live.data, refetch]);

  const result = changeRequest ? change : space;
  const data = result.data;
  const list = change.data ? change.data.space.changeRequest.commentList : space.data?.space.commentList;
  const [members] = useQuery({
    query: MentionableMembers,
    variables: { organizationId: data?.space.organization ?? '' },
    // Only for who may write a comment (guests may not list the members: no failed request for them).
    pause: !data?.space.organization || !data.space.permissions.comment,
  });
  const mentionable: Mentionable[] = members.data?.organization.members.items.map((m) => m.user) ?? [];
  const actions = useCommentActions({ spaceId, changeRequestId: changeRequest?.id ?? null } satisfies CommentScope, refetch);

  return (
    <aside className="comments-panel" aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments</h2>
      <fieldset className="comment-filter">
        <legend>Show</legend>
        {(['open', 'resolved'] as const).map((s) => (
          <label key={s}>
            <input type="radio" name="comment-status" value={s} checked={status === s} onChange={() => setStatus(s)} />{' '}
            {s === 'open' ? 'Open' : 'Resolved'}
          </label>
        ))}
      </fieldset>
      {data?.space.permissions.comment && (
        <NewComment selection={selection} members={mentionable} onPost={(text, node) => actions.post(text, pageId, node)} />
      )}
      <ActionError actions={actions} />
      {result.error && !data && (
        <p role="alert" className="error">
          {errorMessage(result.error)}
        </p>
      )}
      {!data && !result.error && <p aria-busy="true">Loading comments…</p>}
      {data && list && (
        <Threads
          items={list.items}
          status={status}
          viewerId={data.viewer.id}
          members={mentionable}
          actions={actions}
          selection={selection}
        />
      )}
    </aside>
  );
}

function Threads({
  items,
  status,
  viewerId,
  members,
  actions,
  selection,
}: {
  items: CommentThreadFieldsFragment[];
  status: Status;
  viewerId: string;
  members: Mentionable[];
  actions: ReturnType<typeof useCommentActions>;
  selection: BlockSelection;
}) {
  // The list was read for one status; a thread resolved or reopened since waits for the next read.
  const shown = items.filter((c) => c.status === status);
  if (!shown.length)
    return <p className="muted">{status === 'open' ? 'No open comments on this page.' : 'No resolved comments on this page.'}</p>;
  return (
    <ul className="comment-threads" aria-label={status === 'open' ? 'Open comments' : 'Resolved comments'}>
      {shown.map((comment) => (
        <li key={comment.id}>
          <Thread
            comment={comment}
            viewerId={viewerId}
            members={members}
            actions={actions}
            block={findBlock(selection.blocks, comment.target.node?.id)}
            active={selection.active === comment.id}
            onActivate={() => selection.activate(comment.id, comment.target.node?.id ?? null)}
          />
        </li>
      ))}
    </ul>
  );
}

/** A new comment: on the selected block (picked on the page, or in the list) or on the whole page. */
function NewComment({
  selection,
  members,
  onPost,
}: {
  selection: BlockSelection;
  members: Mentionable[];
  onPost: (text: string, node: string | null) => Promise<boolean>;
}) {
  const [text, setText] = useState('');
  const id = useId();
  const selected = findBlock(selection.blocks, selection.selected);
  return (
    <form
      className="new-comment"
      onSubmit={async (e) => {
        e.preventDefault();
        if (text.trim() && (await onPost(text, selected?.key ?? null))) {
          setText('');
          selection.select(null);
        }
      }}
    >
      <label htmlFor={id}>Comment on</label>
      <select id={id} value={selected?.key ?? ''} onChange={(e) => selection.select(e.target.value || null)}>
        <option value="">the whole page</option>
        {selection.blocks.map((b) => (
          <option key={b.key} value={b.key}>
            block {b.index + 1}: {b.excerpt}
          </option>
        ))}
      </select>
      <MentionTextarea label="New comment" value={text} onChange={setText} members={members} />
      <button type="submit" disabled={!text.trim()}>
        Comment
      </button>
    </form>
  );
}
