/**
 * Issue clustering: TF-IDF vectors compared by cosine similarity, grouped by a similarity
 * threshold. Deterministic: the same issues in the same order (and the same previous assignment)
 * always give the same clusters.
 *
 * Vectors. Each issue is a bag of normalised, stemmed terms (`termCounts` in ./text.ts). A term's
 * weight is (1 + ln tf) · idf with idf = ln((1 + N) / (1 + df)) + 1 over the N issues of the
 * organisation (smoothed, so a term in every issue still weighs 1), and each vector is L2-normalised.
 * The idf is recomputed from all issues at every clustering, so weights follow the corpus.
 *
 * Clusters. A cluster is represented by the sum of its members' vectors (its centroid, up to a
 * factor); an issue's similarity to a cluster is the cosine between its vector and that sum.
 * 1. Start from the previous assignment (issues already clustered keep their cluster), so cluster
 *    ids stay stable as conversations arrive.
 * 2. Assign each new issue, in order, to the most similar cluster if that similarity reaches
 *    `threshold`; otherwise it starts a new cluster (single-pass "leader" clustering).
 * 3. Refine, like k-means, until nothing moves (at most `maxPasses`): every issue moves to the
 *    cluster it is most similar to when that is at least `threshold` and better than its own
 *    cluster's similarity measured without itself (leave-one-out, so a cluster does not hold an
 *    issue merely because the issue is part of its centroid). An issue that no longer resembles its
 *    cluster (leave-one-out similarity under `threshold` / 2) and no other leaves it for a cluster
 *    of its own.
 * 4. Merge clusters whose centroids have a cosine of at least `mergeThreshold` (most similar pair
 *    first; the larger cluster, then the older, keeps its id), so two clusters that grew towards
 *    each other become one.
 * Candidate clusters are found through an inverted index (term → clusters having it), so each
 * comparison costs the size of the issue's vector, not the number of clusters.
 */

export type TermCounts = Record<string, number>;
export type Vector = Map<string, number>;

export interface ClusterInput {
  id: string;
  terms: TermCounts;
  /** The cluster it was in, or null for a new issue. */
  cluster: string | null;
}

export interface ClusteringOptions {
  /** Minimum cosine between an issue and a cluster's centroid for the issue to join it. */
  threshold: number;
  /** Minimum cosine between two centroids for the clusters to merge. */
  mergeThreshold: number;
  maxPasses: number;
}

/** Tuned on the support corpus shipped with the tests (test/fixtures/support-conversations.json). */
export const DEFAULT_CLUSTERING: ClusteringOptions = { threshold: 0.15, mergeThreshold: 0.45, maxPasses: 10 };

const EPSILON = 1e-9;

/** TF-IDF vectors (L2-normalised) of every item, idf computed over the items themselves. */
export function tfidfVectors(items: { id: string; terms: TermCounts }[]): Map<string, Vector> {
  const df = new Map<string, number>();
  for (const item of items) for (const term of Object.keys(item.terms)) df.set(term, (df.get(term) ?? 0) + 1);
  const n = items.length;
  const vectors = new Map<string, Vector>();
  for (const item of items) {
    const v: Vector = new Map();
    let norm = 0;
    for (const [term, tf] of Object.entries(item.terms)) {
      if (tf <= 0) continue;
      const w = (1 + Math.log(tf)) * (Math.log((1 + n) / (1 + df.get(term)!)) + 1);
      v.set(term, w);
      norm += w * w;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [term, w] of v) v.set(term, w / norm);
    vectors.set(item.id, v);
  }
  return vectors;
}

export function cosine(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [term, w] of small) {
    const o = large.get(term);
    if (o !== undefined) dot += w * o;
  }
  for (const w of a.values()) na += w * w;
  for (const w of b.values()) nb += w * w;
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

class Cluster {
  readonly sum: Vector = new Map();
  norm2 = 0;
  readonly members = new Set<string>();
  constructor(
    readonly id: string,
    /** Creation order: lower is older (ties and survivors of merges). */
    readonly rank: number,
  ) {}

  dot(v: Vector): number {
    let d = 0;
    for (const [term, w] of v) {
      const s = this.sum.get(term);
      if (s !== undefined) d += w * s;
    }
    return d;
  }

  add(id: string, v: Vector, index: Map<string, Set<Cluster>>) {
    const d = this.dot(v);
    this.norm2 += 2 * d + 1;
    for (const [term, w] of v) {
      this.sum.set(term, (this.sum.get(term) ?? 0) + w);
      let set = index.get(term);
      if (!set) index.set(term, (set = new Set()));
      set.add(this);
    }
    this.members.add(id);
  }

  remove(id: string, v: Vector) {
    const d = this.dot(v);
    this.norm2 = Math.max(0, this.norm2 - 2 * d + 1);
    for (const [term, w] of v) {
      const s = (this.sum.get(term) ?? 0) - w;
      if (Math.abs(s) < EPSILON) this.sum.delete(term);
      else this.sum.set(term, s);
    }
    this.members.delete(id);
    if (!this.members.size) {
      this.sum.clear();
      this.norm2 = 0;
    }
  }

  /** Cosine between `v` (unit length) and the centroid. */
  similarity(v: Vector): number {
    return this.norm2 > EPSILON ? this.dot(v) / Math.sqrt(this.norm2) : 0;
  }

  /** Cosine between member `v` and the centroid of the other members. */
  similarityWithout(v: Vector): number {
    const rest = this.norm2 - 2 * this.dot(v) + 1;
    return this.members.size > 1 && rest > EPSILON ? (this.dot(v) - 1) / Math.sqrt(rest) : 0;
  }
}

/**
 * Clusters `items` (given in processing order). Returns item id → cluster id; new clusters get
 * ids from `newClusterId`. Clusters of the previous assignment that end up empty are absent.
 */
export function clusterItems(items: ClusterInput[], options: ClusteringOptions, newClusterId: () => string): Map<string, string> {
  const vectors = tfidfVectors(items);
  const clusters = new Map<string, Cluster>();
  const index = new Map<string, Set<Cluster>>();
  const assignment = new Map<string, Cluster>();
  let rank = 0;
  const create = (id: string) => {
    const c = new Cluster(id, rank++);
    clusters.set(id, c);
    return c;
  };
  const best = (v: Vector, except?: Cluster): { cluster: Cluster | null; similarity: number } => {
    const candidates = new Set<Cluster>();
    for (const term of v.keys()) for (const c of index.get(term) ?? []) if (c !== except && c.members.size) candidates.add(c);
    let top: Cluster | null = null;
    let topSimilarity = -1;
    for (const c of candidates) {
      const s = c.similarity(v);
      if (s > topSimilarity + EPSILON || (Math.abs(s - topSimilarity) <= EPSILON && top && c.rank < top.rank)) {
        top = c;
        topSimilarity = s;
      }
    }
    return { cluster: top, similarity: Math.max(0, topSimilarity) };
  };
  const move = (id: string, to: Cluster) => {
    const v = vectors.get(id)!;
    assignment.get(id)?.remove(id, v);
    to.add(id, v, index);
    assignment.set(id, to);
  };

  // 1. The previous assignment.
  for (const item of items) if (item.cluster) move(item.id, clusters.get(item.cluster) ?? create(item.cluster));
  // 2. New issues, in order.
  for (const item of items) {
    if (item.cluster) continue;
    const v = vectors.get(item.id)!;
    const { cluster, similarity } = best(v);
    move(item.id, cluster && similarity >= options.threshold ? cluster : create(newClusterId()));
  }
  // 3. Refinement.
  for (let pass = 0; pass < options.maxPasses; pass++) {
    let moved = 0;
    for (const item of items) {
      const v = vectors.get(item.id)!;
      const own = assignment.get(item.id)!;
      const ownSimilarity = own.similarityWithout(v);
      const other = best(v, own);
      if (other.cluster && other.similarity >= options.threshold && other.similarity > ownSimilarity + EPSILON) {
        move(item.id, other.cluster);
        moved++;
      } else if (
        own.members.size > 1 &&
        ownSimilarity < options.threshold / 2 &&
        !(other.cluster && other.similarity >= options.threshold)
      ) {
        move(item.id, create(newClusterId()));
        moved++;
      }
    }
    if (!moved) break;
  }
  // 4. Merges, most similar pair first.
  for (;;) {
    const live = [...clusters.values()].filter((c) => c.members.size).sort((a, b) => a.rank - b.rank);
    let pair: [Cluster, Cluster] | null = null;
    let top = options.mergeThreshold - EPSILON;
    for (const a of live) {
      const norm = Math.sqrt(a.norm2);
      if (norm < EPSILON) continue;
      const unit: Vector = new Map([...a.sum].map(([t, w]) => [t, w / norm]));
      const candidates = new Set<Cluster>();
      for (const term of unit.keys()) for (const c of index.get(term) ?? []) if (c.members.size && c.rank > a.rank) candidates.add(c);
      for (const b of [...candidates].sort((x, y) => x.rank - y.rank)) {
        const s = b.similarity(unit);
        if (s > top + EPSILON) {
          top = s;
          pair = [a, b];
        }
      }
    }
    if (!pair) break;
    const [a, b] = pair;
    const [keep, drop] = a.members.size > b.members.size || (a.members.size === b.members.size && a.rank < b.rank) ? [a, b] : [b, a];
    for (const id of [...drop.members]) move(id, keep);
  }
  return new Map([...assignment].map(([id, c]) => [id, c.id]));
}

/** The member closest to its cluster's centroid (ties: the first in `order`). */
export function medoid(memberIds: string[], vectors: Map<string, Vector>): string {
  const sum: Vector = new Map();
  for (const id of memberIds) for (const [t, w] of vectors.get(id) ?? []) sum.set(t, (sum.get(t) ?? 0) + w);
  let top = memberIds[0]!;
  let topSimilarity = -Infinity;
  for (const id of memberIds) {
    const s = cosine(vectors.get(id) ?? new Map(), sum);
    if (s > topSimilarity + EPSILON) {
      top = id;
      topSimilarity = s;
    }
  }
  return top;
}

/** The terms weighing most in a cluster's centroid. */
export function topTerms(memberIds: string[], vectors: Map<string, Vector>, count: number): string[] {
  const sum: Vector = new Map();
  for (const id of memberIds) for (const [t, w] of vectors.get(id) ?? []) sum.set(t, (sum.get(t) ?? 0) + w);
  return [...sum]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, count)
    .map(([t]) => t);
}
