import { errorResponse } from './respond.js';

/**
 * What the token-less download routes share (/files in content, /exports in change requests):
 * their unguessable URLs are the capability.
 */

// Downloaded bytes are served on the API's origin: never let a browser run them as a page.
export const DOWNLOAD_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': "sandbox; default-src 'none'" };

// One answer for every refusal (bad or expired signature, deleted space, unknown file, a path that
// names nothing): a URL holder learns nothing about what exists.
export const noSuchFile = () => errorResponse(404, 'No such file, or its link has expired: get a fresh downloadURL from the API');
