// The permissions module's face: grants of users and teams on spaces, collections and sites.

export { writeGrant, type GrantKind, type PendingGrant } from './service.js';
