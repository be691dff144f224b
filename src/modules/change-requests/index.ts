// The change-requests module's face: what other modules (and the entry points) may import from it.

export { ChangeRequestType } from './change-request.js';
export { changeRequestEvent, getChangeRequest } from './service.js';
export { changeRequestById, readableChangeRequest } from './node.js';
export { reviewId, reviewerOf } from './review-id.js';
