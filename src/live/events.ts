/**
 * Live updates, the publishing side. A write announces what changed with one PostgreSQL NOTIFY on
 * one channel; every Lectern process on the database LISTENs on it (listener.ts) and hands the
 * event to its own subscribers. PostgreSQL delivers a notification only when (and if) the
 * transaction that sent it commits, in commit order: so an event sent inside the writing
 * transaction never announces a write that was rolled back, and no process needs any state kept
 * in another process's memory.
 *
 * An event is a topic (what subscribers filter on: `content:<spaceId>`, …), an action and ids —
 * nothing else. NOTIFY payloads are at most 8000 bytes and anyone who can LISTEN on the database
 * reads them, so content, tokens and emails never go in: subscribers read what they show through
 * the GraphQL types, with their own rights, when the event reaches them. `payloadOf` enforces it.
 */

import { processLog } from '../ops/log.js';

/** The one channel (an SQL identifier: inlined in LISTEN, which takes no parameter). */
export const LIVE_CHANNEL = 'lectern_live';

/** An event as published and delivered: `topic`, `action` and ids (null where there is none). */
export interface LiveEvent {
  topic: string;
  action: string;
  [field: string]: string | null;
}

// Ids, actions and topics (`kind:id`): short, and never free text.
const ID_LIKE = /^[A-Za-z0-9_:.-]{1,120}$/;
const MAX_FIELDS = 8;
/** PostgreSQL refuses payloads of 8000 bytes or more. */
const MAX_PAYLOAD = 7999;

/** The NOTIFY payload of an event; throws (a programming error) on anything but ids. */
export function payloadOf(event: LiveEvent): string {
  const entries = Object.entries(event);
  if (entries.length > MAX_FIELDS) throw new Error(`live event ${event.topic}: more than ${MAX_FIELDS} fields`);
  for (const [key, value] of entries) {
    if (!/^[A-Za-z]{1,40}$/.test(key) || (value !== null && (typeof value !== 'string' || !ID_LIKE.test(value)))) {
      throw new Error(`live event ${event.topic}: field ${key} is not an id`);
    }
  }
  const payload = JSON.stringify(event);
  if (Buffer.byteLength(payload) > MAX_PAYLOAD) throw new Error(`live event ${event.topic}: payload over ${MAX_PAYLOAD} bytes`);
  return payload;
}

/** The parsed event of a payload, or null for anything that is not one (never trusted blindly). */
export function eventOf(payload: string): LiveEvent | null {
  try {
    const value = JSON.parse(payload) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
    const event = value as Record<string, unknown>;
    if (typeof event.topic !== 'string' || typeof event.action !== 'string') return null;
    if (!Object.values(event).every((v) => v === null || typeof v === 'string')) return null;
    return event as LiveEvent;
  } catch {
    return null;
  }
}

/** What both a Prisma client and a Prisma transaction client offer (the publish functions need no more). */
export interface SqlRunner {
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

const notify = (sql: SqlRunner, payload: string) => sql.$executeRawUnsafe('SELECT pg_notify($1, $2)', LIVE_CHANNEL, payload);

/**
 * Publishes inside the writing transaction (`tx`): delivered when it commits, never if it rolls
 * back. A failure fails the transaction, as any of its statements would.
 */
export async function publishInTransaction(tx: SqlRunner, event: LiveEvent): Promise<void> {
  await notify(tx, payloadOf(event));
}

/**
 * Publishes after a write that was one statement (no transaction: it is committed already). One
 * more statement rather than a transaction around both (BEGIN and COMMIT would be two). A failure
 * here cannot undo the write, so it is logged and the write still answers its success: live
 * updates are a notification, not the record (subscribers re-read state when they reconnect).
 */
export async function publishAfterWrite(sql: SqlRunner, event: LiveEvent): Promise<void> {
  const payload = payloadOf(event);
  try {
    await notify(sql, payload);
  } catch (error) {
    processLog().fault(`live update ${event.topic} ${event.action} not sent`, error);
  }
}
