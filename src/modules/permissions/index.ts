// The permissions module's face (issue 18: grants of users and teams on spaces, collections, sites).

export { writeGrant, type GrantKind, type PendingGrant } from './service.js';
