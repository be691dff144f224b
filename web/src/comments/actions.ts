import { useCallback, useState } from 'react';
import { type CombinedError, type OperationResult, useMutation } from 'urql';
import { DeleteComment, DeleteReply, PostComment, PostReply, UpdateComment, UpdateReply } from './documents';

/** Where the comments live: a space's main content, or one of its change requests (by id). */
export interface CommentScope {
  spaceId: string;
  changeRequestId: string | null;
}

/**
 * The writes a thread makes, each followed by `onDone` (the list is read again: the live event
 * does it too, for everyone else). `error` is the last failed write's.
 */
export function useCommentActions(scope: CommentScope, onDone: () => void) {
  const [, post] = useMutation(PostComment);
  const [, update] = useMutation(UpdateComment);
  const [, remove] = useMutation(DeleteComment);
  const [, reply] = useMutation(PostReply);
  const [, updateReply] = useMutation(UpdateReply);
  const [, removeReply] = useMutation(DeleteReply);
  const [error, setError] = useState<CombinedError | undefined>();
  const [busy, setBusy] = useState(false);

  const run = useCallback(
    async (write: Promise<OperationResult>): Promise<boolean> => {
      setBusy(true);
      const result = await write;
      setBusy(false);
      setError(result.error);
      if (!result.error) onDone();
      return !result.error;
    },
    [onDone],
  );

  const { spaceId, changeRequestId } = scope;
  const place = { spaceId, changeRequestId };
  return {
    error,
    busy,
    post: (markdown: string, page: string, node: string | null) => run(post({ ...place, input: { body: { markdown }, page, node } })),
    resolve: (commentId: string, resolved: boolean) => run(update({ ...place, commentId, input: { resolved } })),
    edit: (commentId: string, markdown: string) => run(update({ ...place, commentId, input: { body: { markdown } } })),
    react: (commentId: string, emoji: string, add: boolean) =>
      run(update({ ...place, commentId, input: add ? { addedReactions: [emoji] } : { removedReactions: [emoji] } })),
    remove: (commentId: string) => run(remove({ ...place, commentId })),
    reply: (commentId: string, markdown: string) => run(reply({ ...place, commentId, input: { body: { markdown } } })),
    editReply: (commentId: string, replyId: string, markdown: string) =>
      run(updateReply({ ...place, commentId, replyId, input: { body: { markdown } } })),
    reactReply: (commentId: string, replyId: string, emoji: string, add: boolean) =>
      run(updateReply({ ...place, commentId, replyId, input: add ? { addedReactions: [emoji] } : { removedReactions: [emoji] } })),
    removeReply: (commentId: string, replyId: string) => run(removeReply({ ...place, commentId, replyId })),
  };
}

export type CommentActions = ReturnType<typeof useCommentActions>;
