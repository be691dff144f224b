/**
 * The server under load, in its own process (started by bench/load.ts) so that the load generator
 * does not share its event loop and RSS is the server's alone. It serves, on one database handle:
 *  - Lectern itself (REST adapter and GraphQL), as `npm start` would;
 *  - the floor for this stack: a bare HTTP handler doing the reads of GET /v1/spaces/{id} with Prisma
 *    directly (the same authentication statement, the space, the caller's membership, the counts),
 *    no GraphQL, no adapter (`/bare/spaces/{id}`); and the same read as one hand-written SQL statement
 *    (`/bare-sql/spaces/{id}`);
 *  - GET /__stats on the bare port: SQL statements sent so far, Markdown texts parsed so far and the process's memory
 *    (process.memoryUsage(): rss, heapTotal, heapUsed, external, arrayBuffers).
 * Prints one JSON line `{ url, bareUrl }` when ready; stops on SIGTERM.
 */
import fs from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { authenticate } from '../src/auth/authenticate.js';
import { connect, targetFromUrl } from '../src/db/database.js';
import { startServer } from '../src/server.js';
import { benchConfig } from './support.js';
import { markdownParseCount } from '../src/document/index.js';
import { applyHeapGrowth } from '../src/ops/heap.js';

const config = { ...benchConfig(), port: 0 };
// As `lectern serve` does (src/cli.ts): the heap growth policy of a serving process.
applyHeapGrowth(Number(process.env.LECTERN_HEAP_GROWTH_PERCENT ?? config.heapGrowthPercent));

const SITE_TREE_SQL = `
SELECT json_build_object('data', json_build_object('site', json_build_object('id', s.id, 'title', s.title, 'sections', json_build_object('items', COALESCE((
  SELECT json_agg(json_build_object('id', sec.id, 'title', sec.title, 'path', sec.path, 'siteSpaces', COALESCE((
    SELECT json_agg(json_build_object('id', ss.id, 'path', ss.path, 'space', json_build_object('id', sp.id, 'title', sp.title, 'content', json_build_object('pages', COALESCE((
      SELECT json_agg(json_build_object('id', p.key, 'title', p.value->>'title', 'slug', p.value->>'slug', 'parent', p.value->>'parent')
                      ORDER BY p.value->>'parent' NULLS FIRST, (p.value->>'position')::float)
      FROM "Revision" r
      JOIN "ContentObject" m ON m.hash = r.manifest
      CROSS JOIN LATERAL jsonb_array_elements_text(m.data->'shards') AS shard(hash)
      JOIN "ContentObject" so ON so.hash = shard.hash
      CROSS JOIN LATERAL jsonb_each(so.data) AS p
      WHERE r.id = sp."revisionId"), '[]'::json)))) ORDER BY ss.position)
    FROM "SiteSpace" ss JOIN "Space" sp ON sp.id = ss."spaceId" AND sp."deletedAt" IS NULL
    WHERE ss."sectionId" = sec.id), '[]'::json)) ORDER BY sec.position)
  FROM "SiteSection" sec WHERE sec."siteId" = s.id), '[]'::json)))))::text AS body
FROM "Site" s
WHERE s.id = $1 AND s."organizationId" = $2
  AND EXISTS (SELECT 1 FROM "Member" mb WHERE mb."organizationId" = s."organizationId" AND mb."userId" = $3)`;
const db = connect(targetFromUrl(process.env.DATABASE_URL!));
const app = await startServer(config, { db });

const bare = http.createServer(async (req, res) => {
  if (req.url!.startsWith('/__profile/')) return profile(req.url!.slice('/__profile/'.length), res);
  if (req.url === '/__stats') {
    return res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ statements: db.statements.count, parses: markdownParseCount(), ...process.memoryUsage() }));
  }
  const auth = await authenticate(db, (req.headers.authorization ?? '').replace(/^Bearer /, ''), config.rateLimit);
  if (!auth) return res.writeHead(401).end();
  if (req.url!.startsWith('/bare-sql/site-tree/')) {
    // The floor of the one-site query (bench/front-end.ts): the same data in one hand-written
    // statement, nested with json_agg — site → sections → site spaces → space → every page of the
    // space's current revision (read from its manifest's shards). Pages come flat with their parent
    // (SQL has no recursion-free way to nest a tree of any depth); positions order them.
    const [, , , orgId, siteId] = req.url!.split('/');
    const { rows } = await db.pool.query<{ body: string }>(SITE_TREE_SQL, [siteId, orgId, auth.caller.id]);
    if (!rows[0]) return res.writeHead(404).end();
    return res.writeHead(200, { 'content-type': 'application/json' }).end(rows[0].body);
  }
  if (req.url!.startsWith('/bare-sql/')) {
    // Below the floor: the same read as one hand-written SQL statement through pg (no Prisma).
    const { rows } = await db.pool.query(
      `SELECT s.*, m.role, (SELECT count(*)::int FROM "Comment" c WHERE c."spaceId" = s.id AND c.status = 'open') AS comments,
              (SELECT json_object_agg(status, n) FROM (SELECT status, count(*)::int AS n FROM "ChangeRequest" r WHERE r."spaceId" = s.id GROUP BY status) g) AS "changeRequests"
       FROM "Space" s LEFT JOIN "Member" m ON m."organizationId" = s."organizationId" AND m."userId" = $2
       WHERE s.id = $1 AND s."deletedAt" IS NULL`,
      [req.url!.split('/').pop(), auth.caller.id],
    );
    const space = rows[0];
    if (!space || (space.role === undefined && space.visibility === 'private')) return res.writeHead(404).end();
    return res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ object: 'space', ...space, permissions: { view: true, edit: space.role !== 'read' } }));
  }
  const space = await db.prisma.space.findUnique({ where: { id: req.url!.split('/').pop()! } });
  if (!space || space.deletedAt) return res.writeHead(404).end();
  const [member, changeRequests, comments] = await Promise.all([
    db.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: space.organizationId, userId: auth.caller.id } } }),
    db.prisma.changeRequest.groupBy({ by: ['status'], where: { spaceId: space.id }, _count: { _all: true } }),
    db.prisma.comment.count({ where: { spaceId: space.id, status: 'open' } }),
  ]);
  if (!member && space.visibility === 'private') return res.writeHead(404).end();
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(
      JSON.stringify({ object: 'space', ...space, permissions: { view: true, edit: member?.role !== 'read' }, changeRequests, comments }),
    );
});
/**
 * CPU profiles of a timed window alone (bench/load.ts with BENCH_PROFILE_ROWS=1): `start`, then
 * `stop?file=…` writes the .cpuprofile there (for DevTools, or the summary in bench/profile-top.ts).
 */
let inspector: Session | undefined;
async function profile(action: string, res: http.ServerResponse) {
  if (!inspector) {
    inspector = new Session();
    inspector.connect();
    await inspector.post('Profiler.enable');
  }
  if (action === 'start') await inspector.post('Profiler.start');
  else {
    const { profile: taken } = await inspector.post('Profiler.stop');
    fs.writeFileSync(decodeURIComponent(action.replace(/^stop\?file=/, '')), JSON.stringify(taken));
  }
  res.writeHead(204).end();
}

await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as { port: number }).port}`;
console.log(JSON.stringify({ url: app.url, bareUrl }));

process.once('SIGTERM', async () => {
  bare.close();
  await app.close();
  await db.close();
  process.exit(0);
});
