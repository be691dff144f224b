// The sessions module's face: people's sign-in (passwords, browser sessions, OIDC) for the entry
// points and for other modules' sign-ins (SAML ends in the same session).
export { ANONYMOUS_CALLER, onlyPublicOperations, PUBLIC_FIELDS } from './public-operations.js';
export { openSession, purgeEndedSessions, sessionCookieFor, type OpenedSession } from './browser-sessions.js';
export { setPassword } from './sign-in.js';
export { checkPassword, hashPassword } from './passwords.js';
export { appPathOf, safeNext } from './next.js';
