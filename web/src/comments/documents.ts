import { graphql } from '../gql';

/** The comments panel's GraphQL documents: one thread's fields, the lists, the writes and the live events. */

export const CommentReplyFields = graphql(`
  fragment CommentReplyFields on CommentReply {
    id
    postedBy { id displayName }
    postedAt
    editedAt
    body { markdown }
    permissions { edit reply delete }
    reactions { emoji count users { user { id displayName } } }
  }
`);

export const CommentThreadFields = graphql(`
  fragment CommentThreadFields on Comment {
    id
    postedBy { id displayName }
    postedAt
    editedAt
    status
    resolvedAt
    resolvedBy { id displayName }
    body { markdown }
    target { node { id } }
    permissions { edit reply delete }
    reactions { emoji count users { user { id displayName } } }
    replyList(limit: 50) { count items { ...CommentReplyFields } }
  }
`);

export const SpacePageComments = graphql(`
  query SpacePageComments($spaceId: ID!, $page: String!, $status: CommentStatusFilter!) {
    viewer { id displayName }
    space(id: $spaceId) {
      id
      organization
      permissions { comment }
      commentList(targetPage: $page, status: $status, order: asc, limit: 50) { count items { ...CommentThreadFields } }
    }
  }
`);

export const ChangeRequestPageComments = graphql(`
  query ChangeRequestPageComments($spaceId: ID!, $changeRequest: String!, $page: String!, $status: CommentStatusFilter!) {
    viewer { id displayName }
    space(id: $spaceId) {
      id
      organization
      permissions { comment }
      changeRequest(id: $changeRequest) {
        id
        commentList(targetPage: $page, status: $status, order: asc, limit: 50) { count items { ...CommentThreadFields } }
      }
    }
  }
`);

export const MentionableMembers = graphql(`
  query MentionableMembers($organizationId: ID!) {
    organization(id: $organizationId) { id members(limit: 500) { items { user { id displayName } } } }
  }
`);

export const CommentEvents = graphql(`
  subscription PanelCommentEvents($spaceId: ID!, $changeRequestId: ID) {
    commentEvents(spaceId: $spaceId, changeRequestId: $changeRequestId) { action commentId replyId }
  }
`);

export const PostComment = graphql(`
  mutation PanelPostComment($spaceId: ID!, $changeRequestId: String, $input: PostCommentInput!) {
    postComment(spaceId: $spaceId, changeRequestId: $changeRequestId, input: $input) { ...CommentThreadFields }
  }
`);

export const UpdateComment = graphql(`
  mutation PanelUpdateComment($spaceId: ID!, $changeRequestId: String, $commentId: ID!, $input: UpdateCommentInput!) {
    updateComment(spaceId: $spaceId, changeRequestId: $changeRequestId, commentId: $commentId, input: $input) { ...CommentThreadFields }
  }
`);

export const DeleteComment = graphql(`
  mutation PanelDeleteComment($spaceId: ID!, $changeRequestId: String, $commentId: ID!) {
    deleteComment(spaceId: $spaceId, changeRequestId: $changeRequestId, commentId: $commentId)
  }
`);

export const PostReply = graphql(`
  mutation PanelPostReply($spaceId: ID!, $changeRequestId: String, $commentId: ID!, $input: PostCommentReplyInput!) {
    postCommentReply(spaceId: $spaceId, changeRequestId: $changeRequestId, commentId: $commentId, input: $input) { ...CommentReplyFields }
  }
`);

export const UpdateReply = graphql(`
  mutation PanelUpdateReply($spaceId: ID!, $changeRequestId: String, $commentId: ID!, $replyId: ID!, $input: UpdateCommentReplyInput!) {
    updateCommentReply(spaceId: $spaceId, changeRequestId: $changeRequestId, commentId: $commentId, replyId: $replyId, input: $input) {
      ...CommentReplyFields
    }
  }
`);

export const DeleteReply = graphql(`
  mutation PanelDeleteReply($spaceId: ID!, $changeRequestId: String, $commentId: ID!, $replyId: ID!) {
    deleteCommentReply(spaceId: $spaceId, changeRequestId: $changeRequestId, commentId: $commentId, replyId: $replyId)
  }
`);

/** A change request's saves, with who edited it and when (to tell another person's save from one's own). */
export const ChangeRequestSaves = graphql(`
  query ChangeRequestSaves($spaceId: ID!, $changeRequest: String!) {
    viewer { id }
    space(id: $spaceId) { id changeRequest(id: $changeRequest) { id revision contributorList(limit: 100) { items { count updatedAt user { id displayName } } } } }
  }
`);

export const ChangeRequestSaveEvents = graphql(`
  subscription ChangeRequestSaveEvents($spaceId: ID!, $changeRequestId: ID!) {
    changeRequestEvents(spaceId: $spaceId, changeRequestId: $changeRequestId) { action changeRequest { id revision } }
  }
`);
