import { useState } from 'react';
import type { CommentReplyFieldsFragment, CommentThreadFieldsFragment } from '../gql/graphql';
import { errorMessage } from '../lib/client';
import { formatDate } from '../lib/ui';
import type { CommentActions } from './actions';
import type { PageBlock } from './blocks';
import { CommentText, type Mentionable, MentionTextarea } from './MentionTextarea';

/** The reactions offered: a few, each with the name a screen reader says. */
const EMOJI: [string, string][] = [
  ['👍', 'Thumbs up'],
  ['🎉', 'Hooray'],
  ['😄', 'Smile'],
  ['👀', 'Eyes'],
];

type Reaction = CommentThreadFieldsFragment['reactions'][number];

/** Reaction buttons: pressed when the viewer reacted with that emoji; pressing again takes it back. */
function Reactions({
  reactions,
  viewerId,
  enabled,
  onToggle,
}: {
  reactions: Reaction[];
  viewerId: string;
  enabled: boolean;
  onToggle: (emoji: string, add: boolean) => void;
}) {
  return (
    <div className="reactions">
      {EMOJI.map(([emoji, name]) => {
        const reaction = reactions.find((r) => r.emoji === emoji);
        const mine = !!reaction?.users.some((u) => u.user.id === viewerId);
        const count = reaction?.count ?? 0;
        if (!enabled && !count) return null;
        return (
          <button
            key={emoji}
            type="button"
            className="reaction"
            aria-pressed={mine}
            disabled={!enabled}
            aria-label={`${name}, ${count} ${count === 1 ? 'reaction' : 'reactions'}`}
            title={reaction?.users.map((u) => u.user.displayName).join(', ')}
            onClick={() => onToggle(emoji, !mine)}
          >
            <span aria-hidden="true">{emoji}</span>
            {count > 0 && <span aria-hidden="true"> {count}</span>}
          </button>
        );
      })}
    </div>
  );
}

/** A body, or the form that edits it (its author's). */
function Body({
  markdown,
  members,
  editing,
  onSave,
  onCancel,
}: {
  markdown: string;
  members: Mentionable[];
  editing: boolean;
  onSave: (markdown: string) => Promise<boolean>;
  onCancel: () => void;
}) {
  const [text, setText] = useState(markdown);
  if (!editing) return <CommentText text={markdown} members={members} />;
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        if (text.trim() && (await onSave(text))) onCancel();
      }}
    >
      <MentionTextarea label="Edit comment" value={text} onChange={setText} members={members} />
      <button type="submit" disabled={!text.trim()}>
        Save
      </button>{' '}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

/** Edit and delete, for who may (a delete asks once more). */
function OwnActions({
  what,
  permissions,
  onEdit,
  onDelete,
}: {
  what: string;
  permissions: { edit: boolean; delete: boolean };
  onEdit: () => void;
  onDelete: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  return (
    <>
      {permissions.edit && (
        <button type="button" className="link-button" onClick={onEdit}>
          Edit {what}
        </button>
      )}
      {permissions.delete &&
        (confirming ? (
          <>
            <button type="button" className="link-button danger" onClick={onDelete}>
              Confirm delete
            </button>
            <button type="button" className="link-button" onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" className="link-button" onClick={() => setConfirming(true)}>
            Delete {what}
          </button>
        ))}
    </>
  );
}

function Reply({
  commentId,
  reply,
  viewerId,
  members,
  actions,
}: {
  commentId: string;
  reply: CommentReplyFieldsFragment;
  viewerId: string;
  members: Mentionable[];
  actions: CommentActions;
}) {
  const [editing, setEditing] = useState(false);
  const author = reply.postedBy.displayName || 'Someone';
  return (
    <article className="comment-reply" aria-label={`Reply by ${author}`}>
      <p className="comment-meta">
        <strong>{author}</strong> <span className="muted">{formatDate(reply.postedAt)}</span>
        {reply.editedAt && <span className="muted"> (edited)</span>}
      </p>
      <Body
        markdown={reply.body.markdown ?? ''}
        members={members}
        editing={editing}
        onSave={(text) => actions.editReply(commentId, reply.id, text)}
        onCancel={() => setEditing(false)}
      />
      <Reactions
        reactions={reply.reactions}
        viewerId={viewerId}
        enabled={reply.permissions.reply}
        onToggle={(emoji, add) => actions.reactReply(commentId, reply.id, emoji, add)}
      />
      <OwnActions
        what="reply"
        permissions={reply.permissions}
        onEdit={() => setEditing(true)}
        onDelete={() => actions.removeReply(commentId, reply.id)}
      />
    </article>
  );
}

export interface ThreadProps {
  comment: CommentThreadFieldsFragment;
  viewerId: string;
  members: Mentionable[];
  actions: CommentActions;
  /** The block the comment is on (undefined: the page, or a block no longer there). */
  block: PageBlock | undefined;
  active: boolean;
  onActivate: () => void;
}

/** One thread: the comment, its reactions, its replies, and what the viewer may do with them. */
export function Thread({ comment, viewerId, members, actions, block, active, onActivate }: ThreadProps) {
  const [editing, setEditing] = useState(false);
  const [reply, setReply] = useState('');
  const author = comment.postedBy.displayName || 'Someone';
  const resolved = comment.status === 'resolved';
  const anchored = !!comment.target.node;
  return (
    <article
      className={`comment-thread${active ? ' active' : ''}${resolved ? ' resolved' : ''}`}
      aria-label={`Comment by ${author}`}
      onFocus={onActivate}
      onMouseEnter={onActivate}
    >
      <p className="comment-meta">
        <strong>{author}</strong> <span className="muted">{formatDate(comment.postedAt)}</span>
        {comment.editedAt && <span className="muted"> (edited)</span>}
      </p>
      {anchored &&
        (block ? (
          <button
            type="button"
            className="link-button block-ref"
            onClick={() => {
              onActivate();
              block.element.scrollIntoView({ block: 'center', behavior: 'smooth' });
            }}
          >
            On “{block.excerpt}”
          </button>
        ) : (
          <p className="muted block-ref">On a block that is no longer on the page</p>
        ))}
      <Body
        markdown={comment.body.markdown ?? ''}
        members={members}
        editing={editing}
        onSave={(text) => actions.edit(comment.id, text)}
        onCancel={() => setEditing(false)}
      />
      <Reactions
        reactions={comment.reactions}
        viewerId={viewerId}
        enabled={comment.permissions.reply}
        onToggle={(emoji, add) => actions.react(comment.id, emoji, add)}
      />
      {resolved && (
        <p className="muted">
          Resolved by {comment.resolvedBy?.displayName || 'someone'} {formatDate(comment.resolvedAt)}
        </p>
      )}
      <p className="comment-actions">
        {comment.permissions.reply && (
          <button type="button" className="link-button" onClick={() => actions.resolve(comment.id, !resolved)}>
            {resolved ? 'Reopen' : 'Resolve'}
          </button>
        )}
        <OwnActions
          what="comment"
          permissions={comment.permissions}
          onEdit={() => setEditing(true)}
          onDelete={() => actions.remove(comment.id)}
        />
      </p>
      {comment.replyList.items.map((r) => (
        <Reply key={r.id} commentId={comment.id} reply={r} viewerId={viewerId} members={members} actions={actions} />
      ))}
      {comment.permissions.reply && (
        <form
          className="reply-form"
          onSubmit={async (e) => {
            e.preventDefault();
            if (reply.trim() && (await actions.reply(comment.id, reply))) setReply('');
          }}
        >
          <MentionTextarea label={`Reply to ${author}`} value={reply} onChange={setReply} members={members} rows={2} />
          <button type="submit" disabled={!reply.trim() || actions.busy}>
            Reply
          </button>
        </form>
      )}
    </article>
  );
}

export function ActionError({ actions }: { actions: CommentActions }) {
  if (!actions.error) return null;
  return (
    <p role="alert" className="error">
      {errorMessage(actions.error)}
    </p>
  );
}
