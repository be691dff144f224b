// The collections module's face: what other modules (and the entry points) may import from it.

export { CollectionType } from './collection.js';
export { COLLECTION_FIELDS } from './routes.js';
export { ContentPositionInput } from './position-input.js';
export { listCollectionSpaces } from './service.js';
export { type ContentPosition, placeAmongSiblings } from './siblings.js';
