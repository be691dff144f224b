/**
 * The Markdown parser in a worker thread (src/jobs/isolate.ts), for bodies large enough that
 * parsing them on the event loop would hold every other request (see markdown-offload.ts). Results
 * cross back as records whose document is JSON text: rebuilding a large object graph from a
 * structured clone cost the event loop ~270 ms for a 1 MB page, JSON.parse a fraction.
 */
import { deriveRecord, type DerivationRecord } from './derivation.js';

export const derive = (bodies: string[]): DerivationRecord[] => bodies.map(deriveRecord);
