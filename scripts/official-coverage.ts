/**
 * How many operations of the official GitBook description (0.202.0, src/rest/official-operations.json)
 * Lectern's /v1 serves: an operation counts when a REST route answers its method and path template.
 * Also lists the routes whose operationId differs from the official one at that path, and the routes
 * 0.202.0 does not describe (0.146.0-only operations and Lectern's own).
 *
 *   npx tsx scripts/official-coverage.ts [--unserved] [--by-area]
 *
 * `--by-area` prints the README's table: served operations per official tag (0.202.0's first tag).
 */
import { fileURLToPath } from 'node:url';
import official from '../src/rest/official-operations.json' with { type: 'json' };
import { restRoutes } from '../src/modules/index.js';
import type { RestRoute } from '../src/rest/route.js';

export type OfficialOperation = (typeof official.operations)[number];

/** `/orgs/{organizationId}` and `/orgs/:organizationId` → `/orgs/{}` (`:pagePath+`, a parameter spanning segments, too). */
const shape = (method: string, path: string) => `${method} ${path.replace(/\{[^}]+\}|:\w+\+?/g, '{}').replace(/\/+$/, '')}`;

export function officialCoverage(routes: RestRoute[] = restRoutes) {
  const served = new Map(routes.map((route) => [shape(route.method, route.path), route]));
  const officialShapes = new Set(official.operations.map((o) => shape(o.method, o.path)));
  return {
    source: official.source,
    operations: official.operations,
    served: official.operations.filter((o) => served.has(shape(o.method, o.path))),
    unserved: official.operations.filter((o) => !served.has(shape(o.method, o.path))),
    renamed: official.operations.flatMap((o) => {
      const route = served.get(shape(o.method, o.path));
      return route && route.operationId !== o.operationId ? [{ official: o, route }] : [];
    }),
    beyond: routes.filter((route) => !officialShapes.has(shape(route.method, route.path))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const c = officialCoverage();
  console.log(`Lectern serves ${c.served.length} of the ${c.operations.length} operations of ${c.source}.`);
  if (c.renamed.length) {
    console.log(`\nRoutes whose operationId differs from the official one at their path:`);
    for (const { official: o, route } of c.renamed)
      console.log(`  ${o.method} ${o.path}: official ${o.operationId}, route ${route.operationId}`);
  }
  console.log(`\nRoutes ${c.source} does not describe (${c.beyond.length}):`);
  for (const r of c.beyond) console.log(`  ${r.method} ${r.path} (${r.operationId})`);
  if (process.argv.includes('--by-area')) {
    const { default: spec } = await import('gitbook-api-0202/spec/openapi.json', { with: { type: 'json' } });
    const served = new Set(c.served.map((o) => o.operationId));
    const areas = new Map<string, { served: number; missing: string[] }>();
    for (const methods of Object.values(spec.paths as Record<string, Record<string, { operationId?: string; tags?: string[] }>>)) {
      for (const op of Object.values(methods)) {
        if (!op.operationId) continue;
        const area = areas.get(op.tags?.[0] ?? 'other') ?? { served: 0, missing: [] };
        if (served.has(op.operationId)) area.served++;
        else area.missing.push(op.operationId);
        areas.set(op.tags?.[0] ?? 'other', area);
      }
    }
    console.log('\n| area (official tag) | served | of | not served (answered 501) |\n|---|---|---|---|');
    for (const [tag, a] of [...areas].sort(([x], [y]) => x.localeCompare(y))) {
      const missing = a.missing.length > 5 ? `${a.missing.slice(0, 4).join(', ')}, … (${a.missing.length})` : a.missing.join(', ');
      console.log(`| ${tag} | ${a.served} | ${a.served + a.missing.length} | ${missing} |`);
    }
  }
  if (process.argv.includes('--unserved')) {
    console.log(`\nNot served (${c.unserved.length}, answered 501):`);
    for (const o of c.unserved) console.log(`  ${o.method} ${o.path} (${o.operationId})`);
  }
}
