/**
 * graphql-jit alone, without HTTP or a database: the CPU of one compiled query's execution on two
 * shapes of Lectern's reads — the nested site query (a site of 50 sections × 20 site spaces × 30
 * pages, the pages behind a promise as a loader gives them) and a page of 100 spaces (17 fields,
 * one behind a promise). For a graphql-jit upgrade: run it on both versions, in turns.
 *
 *   npx tsx bench/jit-shapes.ts                       # the project's graphql-jit
 *   BENCH_JIT_FROM=/tmp/other npx tsx bench/jit-shapes.ts   # another install (npm i graphql-jit@X graphql@16 there)
 *
 * Prints one line per shape: the version and the CPU per execution (process.cpuUsage, after a warm-up).
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const from = process.env.BENCH_JIT_FROM ? path.resolve(process.env.BENCH_JIT_FROM, 'package.json') : import.meta.url;
const load = createRequire(from);
const { buildSchema, parse } = load('graphql') as typeof import('graphql');
const { compileQuery, isCompiledQuery } = load('graphql-jit') as typeof import('graphql-jit');
const version = (load('graphql-jit/package.json') as { version: string }).version;

type Fields = Record<string, { resolve?: (source: any) => unknown }>;
const fieldsOf = (schema: import('graphql').GraphQLSchema, type: string) =>
  (schema.getType(type) as unknown as { getFields(): Fields }).getFields();

function siteShape() {
  const schema = buildSchema(`
    type Query { site: Site }
    type Site { id: ID! title: String! sections: [Section!]! }
    type Section { id: ID! title: String! path: String! siteSpaces: [SiteSpace!]! }
    type SiteSpace { id: ID! path: String! space: Space! }
    type Space { id: ID! title: String! pages: [Page!]! }
    type Page { id: ID! title: String! slug: String! parent: String }
  `);
  const pages = Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, title: `Page ${i}`, slug: `page-${i}`, parent: i ? 'p0' : null }));
  const site = {
    id: 's',
    title: 'Site',
    sections: Array.from({ length: 50 }, (_, i) => ({
      id: `sec${i}`,
      title: `Section ${i}`,
      path: `s${i}`,
      siteSpaces: Array.from({ length: 20 }, (_, j) => ({
        id: `ss${i}-${j}`,
        path: `p${j}`,
        space: { id: `sp${j}`, title: `Space ${j}` },
      })),
    })),
  };
  fieldsOf(schema, 'Query').site!.resolve = () => site;
  fieldsOf(schema, 'Space').pages!.resolve = () => Promise.resolve(pages);
  const document = parse(
    '{ site { id title sections { id title path siteSpaces { id path space { id title pages { id title slug parent } } } } } }',
  );
  return { name: 'site of 50 × 20 × 30 pages', schema, document, runs: 300 };
}

function pageShape() {
  const schema = buildSchema(`
    type Query { spaces: Page }
    type Page { count: Int! items: [Space!]! }
    type Space { id: ID! title: String! emoji: String visibility: String! createdAt: String! updatedAt: String! urls: Urls!
      permissions: Permissions! organization: String! parent: String comments: Int! changeRequests: Int! }
    type Urls { app: String! published: String location: String! }
    type Permissions { view: Boolean! edit: Boolean! admin: Boolean! }
  `);
  const items = Array.from({ length: 100 }, (_, i) => ({
    id: `s${i}`,
    title: `Space ${i}`,
    emoji: null,
    visibility: 'private',
    createdAt: '2026-11-29T00:00:00.000Z',
    updatedAt: '2026-11-29T00:00:00.000Z',
    organizationId: 'o',
    parentId: null,
  }));
  const space = fieldsOf(schema, 'Space');
  fieldsOf(schema, 'Query').spaces!.resolve = () => ({ count: 1000, items });
  space.urls!.resolve = (s) => ({ app: `/app/s/${s.id}`, published: null, location: `/v1/spaces/${s.id}` });
  space.permissions!.resolve = () => ({ view: true, edit: false, admin: false });
  space.organization!.resolve = (s) => s.organizationId;
  space.parent!.resolve = (s) => s.parentId;
  space.comments!.resolve = () => 3;
  space.changeRequests!.resolve = () => Promise.resolve(2);
  const document = parse(
    '{ spaces { count items { id title emoji visibility createdAt updatedAt urls { app published location } permissions { view edit admin } organization parent comments changeRequests } } }',
  );
  return { name: 'page of 100 spaces', schema, document, runs: 5000 };
}

for (const shape of [siteShape(), pageShape()]) {
  const compiled = compileQuery(shape.schema, shape.document);
  if (!isCompiledQuery(compiled)) throw new Error(`${shape.name}: did not compile`);
  for (let i = 0; i < shape.runs / 3; i++) await compiled.query(undefined, {}, {});
  const before = process.cpuUsage();
  for (let i = 0; i < shape.runs; i++) await compiled.query(undefined, {}, {});
  const used = process.cpuUsage(before);
  console.log(`graphql-jit ${version}, ${shape.name}: ${((used.user + used.system) / 1000 / shape.runs).toFixed(3)} ms CPU per execution`);
}
