// The users module's face: what other modules (and the entry points) may import from it.

export { userLoaders } from './loaders.js';
export { USER_FIELDS } from './routes.js';
export { createUser } from './service.js';
export { UserType } from './user.js';
