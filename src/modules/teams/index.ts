// The teams module's face: what other modules (and the entry points) may import from it.

export { teamLoaders } from './loaders.js';
export { TEAM_FIELDS } from './routes.js';
export { TeamType } from './team.js';
