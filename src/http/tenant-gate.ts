/**
 * Fairness between tenants: at most `concurrency` requests of one tenant (an organization) are
 * served at once; the next ones wait in a short first-come queue, and past `queue` waiting or
 * `maxWaitMs` of waiting they are refused (429 with Retry-After). `concurrency` is below the
 * database pool size, so one busy organization can never hold every connection: another
 * organization's request always finds one, and its latency does not grow with the other's load.
 *
 * Per process, in memory: each Lectern process guards its own pool (a fleet's processes each hold
 * their own connections), so nothing here is state another process needs.
 */
export interface TenantGateOptions {
  /** Requests of one tenant served at once. */
  concurrency: number;
  /** Requests of one tenant allowed to wait; more are refused at once. */
  queue: number;
  /** Longest wait in the queue before a refusal. */
  maxWaitMs: number;
}

export type Admission =
  | { admitted: true; release: () => void }
  | { admitted: false; retryAfter: number; reason: 'queue full' | 'waited too long' };

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

interface Tenant {
  running: number;
  waiting: Waiter[];
}

export function createTenantGate(options: TenantGateOptions) {
  const tenants = new Map<string, Tenant>();

  const releaser = (key: string, tenant: Tenant) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = tenant.waiting.shift();
      if (next) {
        // The slot passes straight to the next waiter: `running` stays the same.
        clearTimeout(next.timer);
        next.admit();
      } else {
        tenant.running--;
        if (tenant.running === 0) tenants.delete(key);
      }
    };
  };

  return {
    /** Waits for a slot of `key`'s share; the caller must call `release()` when its request is done. */
    enter(key: string): Promise<Admission> | Admission {
      let tenant = tenants.get(key);
      if (!tenant) tenants.set(key, (tenant = { running: 0, waiting: [] }));
      if (tenant.running < options.concurrency) {
        tenant.running++;
        return { admitted: true, release: releaser(key, tenant) };
      }
      // Slots free up within a second or two under load: a client that comes back then finds room.
      const retryAfter = Math.max(1, Math.ceil(options.maxWaitMs / 1000 / 5));
      if (tenant.waiting.length >= options.queue) return { admitted: false, retryAfter, reason: 'queue full' };
      const t = tenant;
      return new Promise<Admission>((resolve) => {
        const waiter: Waiter = {
          admit: () => resolve({ admitted: true, release: releaser(key, t) }),
          timer: setTimeout(() => {
            t.waiting.splice(t.waiting.indexOf(waiter), 1);
            resolve({ admitted: false, retryAfter, reason: 'waited too long' });
          }, options.maxWaitMs),
        };
        t.waiting.push(waiter);
      });
    },
    /** For tests and metrics: requests running and waiting for `key`. */
    load(key: string) {
      const tenant = tenants.get(key);
      return { running: tenant?.running ?? 0, waiting: tenant?.waiting.length ?? 0 };
    },
  };
}

export type TenantGate = ReturnType<typeof createTenantGate>;
