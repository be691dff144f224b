/**
 * A review's id: the change request's and the reviewer's (a reviewer has one review per change
 * request; a new submission replaces it). Ids are base62, so the dash separates them unambiguously.
 */
export const reviewId = (changeRequestId: string, userId: string) => `${changeRequestId}-${userId}`;

/** The reviewer of a review id of the change request `changeRequestId`; null when the id is not one of its reviews. */
export function reviewerOf(changeRequestId: string, id: string): string | null {
  const prefix = `${changeRequestId}-`;
  return id.startsWith(prefix) && id.length > prefix.length ? id.slice(prefix.length) : null;
}
