/**
 * Live updates, the receiving side: one LISTEN connection per process and database, fanned out to
 * the process's subscriptions (GraphQL subscriptions over SSE, declared by each module in its
 * subscriptions.ts with `liveSubscription`).
 *
 * - One dedicated connection, outside the pool: a LISTEN connection is held for good, and taking
 *   it from the pool would leave one fewer for requests (and make `pool.end()` wait for it). It is
 *   opened by the first subscription (a process nobody subscribes to holds none) and closed by
 *   `stopLive` (the server's close()).
 * - Topics are routed through a map (`content:<spaceId>` → its subscriptions): an event costs the
 *   subscriptions of its topic, not every subscription of the process.
 * - Each subscription has a bounded buffer. A client that does not read (its SSE stream is full)
 *   stops pulling; past MAX_BUFFERED undelivered events its subscription ends with an error rather
 *   than grow memory without limit. The client knows it missed events and subscribes again.
 * - The connection can drop (a PostgreSQL restart, a failover). Events sent meanwhile are lost for
 *   good — NOTIFY keeps nothing for absent listeners — so a silent reconnection would let
 *   subscribers miss events without knowing. Instead every subscription ends with an UNAVAILABLE
 *   error ("subscribe again, and re-read"), and the next subscription reconnects (it waits for
 *   LISTEN before answering, so it misses nothing committed after its answer started).
 * - Rights are checked by the module when subscribing and again, on a fresh context, before each
 *   delivery (`before`): a member removed meanwhile is refused, exactly as the query would refuse.
 */
import { GraphQLError } from 'graphql';
import { processLog } from '../ops/log.js';
import pg from 'pg';
import type { Context } from '../context.js';
import type { Database } from '../db/database.js';
import { LecternError } from '../errors.js';
import { forgetRequest } from '../loaders.js';
import { eventOf, LIVE_CHANNEL, type LiveEvent } from './events.js';

/** Undelivered events a subscription may hold before it is ended (each a few ids: ~100 bytes). */
export const MAX_BUFFERED = 100;
/** Open subscriptions per user in one process, and in all (each holds an HTTP response open). */
export const MAX_PER_USER = 50;
export const MAX_PER_PROCESS = 10_000;

/** What a subscription's stream yields: an event, or the error that ends it (delivered, then the stream completes). */
export type Delivery = { event: LiveEvent; error?: undefined } | { event?: undefined; error: GraphQLError };

/** The event of a delivery, for a subscription field's `resolve`; throws the error that ends the stream. */
export function delivered(delivery: Delivery): LiveEvent {
  if (delivery.error) throw delivery.error;
  return delivery.event;
}

/**
 * Before each delivery: true to deliver, false to skip this event (not for this subscriber), or
 * throws to end the subscription with that error (the caller lost the right to see it).
 */
export type BeforeDelivery = (event: LiveEvent) => Promise<boolean>;

class Subscription implements AsyncIterableIterator<Delivery> {
  private queue: LiveEvent[] = [];
  private wake: (() => void) | null = null;
  /** Set when it ends: the error still to deliver (undefined: none), then `done`. */
  private ending: { error?: GraphQLError } | null = null;
  private done = false;

  constructor(
    readonly topic: string,
    readonly user: string,
    private readonly before: BeforeDelivery,
    private readonly detach: (s: Subscription) => void,
  ) {}

  push(event: LiveEvent) {
    if (this.ending) return;
    if (this.queue.length >= MAX_BUFFERED) {
      this.end(
        new LecternError(
          'RATE_LIMITED',
          `Live updates: more than ${MAX_BUFFERED} events were not read in time; subscribe again, and re-read what you show`,
        ),
      );
      return;
    }
    this.queue.push(event);
    this.wake?.();
  }

  /** Ends the stream: what is buffered is dropped, `error` (if any) is delivered, then it completes. */
  end(error?: GraphQLError) {
    if (this.ending) return;
    this.ending = { error };
    this.queue = [];
    this.detach(this);
    this.wake?.();
  }

  async next(): Promise<IteratorResult<Delivery>> {
    for (;;) {
      if (this.done) return { done: true, value: undefined };
      const event = this.queue.shift();
      if (event) {
        try {
          if (await this.before(event)) return { done: false, value: { event } };
        } catch (error) {
          // Refused now (not found, forbidden), or the check itself failed: the stream ends with it.
          this.end(error instanceof GraphQLError ? error : new LecternError('INTERNAL', 'Live updates: the delivery check failed'));
          if (!(error instanceof GraphQLError)) processLog().fault('live delivery check failed', error);
        }
        continue;
      }
      if (this.ending) {
        this.done = true;
        const { error } = this.ending;
        if (error) return { done: false, value: { error } };
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  /** The client went away (yoga cancels the stream) or the execution stopped. */
  async return(): Promise<IteratorResult<Delivery>> {
    this.end();
    this.done = true;
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

class Listener {
  private client: pg.Client | null = null;
  private ready: Promise<void> | null = null;
  private readonly topics = new Map<string, Set<Subscription>>();
  private readonly perUser = new Map<string, number>();
  private count = 0;
  private closed = false;

  constructor(private readonly target: pg.ClientConfig) {}

  /** Opens the LISTEN connection unless it is open; resolves once LISTEN is in effect. */
  private listening(): Promise<void> {
    if (this.closed) return Promise.reject(unavailable('the server is shutting down'));
    this.ready ??= this.connect().catch((error) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private async connect() {
    // keepAlive: a connection dropped by a NAT or a failover without a FIN is noticed, not held silently.
    const client = new pg.Client({ ...this.target, keepAlive: true });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel !== LIVE_CHANNEL || !message.payload) return;
      const event = eventOf(message.payload);
      if (event) for (const subscription of this.topics.get(event.topic) ?? []) subscription.push(event);
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${LIVE_CHANNEL}`);
    } catch (error) {
      this.lost(client, error as Error);
      throw unavailable('the database is not reachable');
    }
    // Closed while connecting: nobody will use it.
    if (this.closed) await client.end().catch(() => {});
  }

  /** The connection is gone: its subscriptions end (they may have missed events); the next subscription reconnects. */
  private lost(client: pg.Client, error?: Error) {
    if (client !== this.client) return;
    this.client = null;
    this.ready = null;
    void client.end().catch(() => {});
    if (this.closed) return;
    if (error) processLog().warn(`live updates: LISTEN connection lost: ${error.message}`);
    this.endAll(unavailable('the connection to the database was lost; subscribe again, and re-read what you show'));
  }

  private endAll(error: GraphQLError) {
    for (const subscriptions of [...this.topics.values()]) for (const s of [...subscriptions]) s.end(error);
  }

  async subscribe(topic: string, user: string, before: BeforeDelivery): Promise<Subscription> {
    if (this.count >= MAX_PER_PROCESS)
      throw new LecternError('RATE_LIMITED', `Live updates: this server holds ${MAX_PER_PROCESS} subscriptions already; retry later`);
    if ((this.perUser.get(user) ?? 0) >= MAX_PER_USER)
      throw new LecternError('RATE_LIMITED', `Live updates: at most ${MAX_PER_USER} open subscriptions per user on one server`);
    await this.listening();
    const subscription = new Subscription(topic, user, before, (s) => this.remove(s));
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    set.add(subscription);
    this.count++;
    this.perUser.set(user, (this.perUser.get(user) ?? 0) + 1);
    return subscription;
  }

  private remove(subscription: Subscription) {
    const set = this.topics.get(subscription.topic);
    if (!set?.delete(subscription)) return;
    if (!set.size) this.topics.delete(subscription.topic);
    this.count--;
    const left = (this.perUser.get(subscription.user) ?? 1) - 1;
    if (left) this.perUser.set(subscription.user, left);
    else this.perUser.delete(subscription.user);
  }

  get size() {
    return this.count;
  }

  async close() {
    this.closed = true;
    this.endAll(unavailable('the server is shutting down; subscribe again'));
    const client = this.client;
    this.client = null;
    await this.ready?.catch(() => {});
    await client?.end().catch(() => {});
  }
}

const unavailable = (why: string) => new LecternError('UNAVAILABLE', `Live updates: ${why}`);

const listeners = new WeakMap<Database, Listener>();

function listenerOf(db: Database): Listener {
  let listener = listeners.get(db);
  if (!listener) {
    // The pool's own target (host or socket directory, port, user, password, database): both the
    // embedded server and DATABASE_URL, without knowing which.
    const { host, port, user, password, database } = db.pool.options;
    listener = new Listener({ host, port, user, password, database });
    listeners.set(db, listener);
  }
  return listener;
}

/**
 * A subscription field's stream: events of `topic`, each delivered only if `before` (run on a
 * context that forgot what the previous event loaded, so it sees current rights and rows) lets it
 * through. Call it after the subscribe-time rights check; it resolves once the process LISTENs.
 */
export async function liveSubscription(ctx: Context, topic: string, before: BeforeDelivery): Promise<AsyncIterableIterator<Delivery>> {
  return listenerOf(ctx.db).subscribe(topic, ctx.caller.id, (event) => {
    // graphql-js runs each event's selection with the subscription's one context: forgetting its
    // loaders here serves both the check and that execution fresh rows.
    forgetRequest(ctx);
    return before(event);
  });
}

/**
 * Ends every subscription on `db` (each client is told to subscribe again: another process
 * serves it) and closes the LISTEN connection. The server's close() calls it before draining
 * HTTP: an open event stream would otherwise keep its response, and the close, waiting forever.
 */
export async function stopLive(db: Database): Promise<void> {
  const listener = listeners.get(db);
  if (!listener) return;
  listeners.delete(db);
  await listener.close();
}
