// Writes each REST route's GraphQL document to src/generated/rest-documents/ (one file per route,
// named by its operation), for codegen.ts to type them (TypedDocumentNode) against schema.graphql.
import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, print, type DefinitionNode } from 'graphql';
import { installModules, restRoutes } from '../src/modules/index.js';

const OUT = 'src/generated/rest-documents';
installModules();
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
const fragments = new Map<string, string>();
const seen = new Set<string>();
for (const route of restRoutes) {
  const definitions = parse(route.document).definitions as DefinitionNode[];
  const operation = definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  for (const d of definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, print(d));
  const name = operation[0] && 'name' in operation[0] ? operation[0].name?.value : undefined;
  // Routes sharing one document (same operation name) are typed once.
  if (!name || seen.has(name)) continue;
  seen.add(name);
  fs.writeFileSync(path.join(OUT, `${name.replace(/[^\w]/g, '_')}.graphql`), operation.map((d) => print(d)).join('\n'));
}
// Fragments once, shared by every document that spreads them.
fs.writeFileSync(path.join(OUT, '_fragments.graphql'), [...fragments.values()].join('\n\n'));
console.log(`wrote ${seen.size} documents and ${fragments.size} fragments to ${OUT}`);
