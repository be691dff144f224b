// The spaces module's face: what other modules (and the entry points) may import from it.

export { spaceCountsRider, spaceLoaders } from './loaders.js';
export { SPACE_FIELDS } from './routes.js';
export { duplicateSpace, insertSpace, purgeDeletedSpaces } from './service.js';
export { SpaceType } from './space.js';
export { GIT_SYNC_STATE_SELECTION, GitSyncStateType, type GitSyncStateJson } from './git-sync-state.js';
