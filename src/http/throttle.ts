/**
 * Per-client-address token buckets for the traffic that has no user to charge: requests without a
 * valid token (/files, /exports, /sso, GraphiQL, /readyz, 401s) and failed authentications.
 *
 * They live in process memory on purpose: each bucket protects THIS process's event loop and
 * database pool from one address, so no other process needs to see it (several processes behind a
 * load balancer each refuse a flood on their own; per-user budgets, which must be shared, are in
 * PostgreSQL: src/auth/authenticate.ts). A token bucket has no window boundary to burst across:
 * at most `capacity` at once, then `capacity` per `periodSeconds`, refilled continuously.
 */
export interface Bucket {
  tokens: number;
  /** ms timestamp of the last refill. */
  at: number;
}

export interface Taken {
  ok: boolean;
  /** Seconds until `cost` tokens are available again (0 when ok). */
  retryAfter: number;
}

const MAX_KEYS = 100_000;

export class AddressLimiter {
  private buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    readonly capacity: number,
    readonly periodSeconds = 60,
    private readonly clock: () => number = Date.now,
  ) {
    this.perMs = capacity / (periodSeconds * 1000);
  }

  get enabled() {
    return this.capacity > 0;
  }

  private refill(key: string, now: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= MAX_KEYS) this.sweep(now);
      bucket = { tokens: this.capacity, at: now };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.at) * this.perMs);
      bucket.at = now;
    }
    return bucket;
  }

  /** Whether `cost` tokens are there, without taking them (a check before costly work). */
  peek(key: string, cost = 1): Taken {
    if (!this.enabled) return { ok: true, retryAfter: 0 };
    const bucket = this.refill(key, this.clock());
    return bucket.tokens >= cost
      ? { ok: true, retryAfter: 0 }
      : { ok: false, retryAfter: Math.max(1, Math.ceil((cost - bucket.tokens) / this.perMs / 1000)) };
  }

  /** Takes `cost` tokens if they are there. */
  take(key: string, cost = 1): Taken {
    const seen = this.peek(key, cost);
    if (seen.ok && this.enabled) this.buckets.get(key)!.tokens -= cost;
    return seen;
  }

  /** Forgets full buckets (they say nothing a new one would not); if still too many, the oldest. */
  private sweep(now: number) {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.perMs >= this.capacity) this.buckets.delete(key);
    }
    for (const key of this.buckets.keys()) {
      if (this.buckets.size < MAX_KEYS) break;
      this.buckets.delete(key);
    }
  }
}

/**
 * The key of a client address: IPv4 as is (also when mapped into IPv6), IPv6 by its /64 prefix (one
 * host usually holds a whole /64, so rotating addresses inside it must not buy a fresh budget).
 * In-process calls have no address: they share one "local" key.
 */
export function addressKey(address: string | undefined | null): string {
  if (!address) return 'local';
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') && tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
