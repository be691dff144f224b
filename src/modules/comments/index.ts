// The comments module's face: what other modules (and the entry points) may import from it.
// The registry wires its routes and types; the reviews module posts and shows a review's comment.
export { CommentType } from './comment.js';
export { COMMENT_FIELDS } from './routes.js';
export { postReviewComment, reviewCommentMarkdown } from './review-comment.js';
