/**
 * The tokens this process authenticated lately, by hash (never the token): a read begun before
 * authentication (src/db/early-reads.ts) is begun only for one of them, so a stranger's guessed or
 * revoked token never makes the database work before it is refused. Bounded in size and age; a
 * token that fails authentication is forgotten at once. Its methods take the token's hash
 * (`hashToken`), which the request computes once.
 */
export class RecentTokens {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly max = 10_000,
    private readonly maxAgeMs = 10 * 60_000,
  ) {}

  note(hash: string, now = Date.now()): void {
    this.seen.delete(hash);
    this.seen.set(hash, now);
    // Oldest first (insertion order): drop past the bound.
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
  }

  forget(hash: string): void {
    this.seen.delete(hash);
  }

  has(hash: string, now = Date.now()): boolean {
    const at = this.seen.get(hash);
    if (at === undefined) return false;
    if (now - at <= this.maxAgeMs) return true;
    this.seen.delete(hash);
    return false;
  }
}
