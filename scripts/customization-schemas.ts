/**
 * Writes src/modules/sites/customization-schemas.json: the official request-body schemas of the
 * site customization and redirect operations (@gitbook/api@0.202.0, the dev dependency
 * `gitbook-api-0202`) with every component they reference, for the server to validate bodies
 * against at run time (it never loads a dev dependency). One change to the official text: every
 * object schema that lists its `properties` and says nothing of others gets
 * `additionalProperties: false`, so an unknown field is a 400 naming it (the official schemas leave
 * them open). `--check` exits 1 when the committed file differs.
 *
 *   npx tsx scripts/customization-schemas.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const target = fileURLToPath(new URL('../src/modules/sites/customization-schemas.json', import.meta.url));

function closed(node: any): any {
  if (Array.isArray(node)) return node.map(closed);
  if (!node || typeof node !== 'object') return node;
  const out: any = {};
  for (const [k, v] of Object.entries(node))
    out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v);
  if (out.properties && out.additionalProperties === undefined && !out.allOf) out.additionalProperties = false;
  // Descriptions and examples are not needed to validate: they would triple the file.
  delete out.description;
  delete out.example;
  delete out.examples;
  delete out.deprecated;
  return out;
}

/**
 * A `oneOf` whose branches are objects that each require one property with its own values (`kind`,
 * `type`, …) gets Ajv's `discriminator` on it: a bad body is then checked against the one branch
 * its discriminator names, so the 400 names what is wrong there (not "must match one schema").
 */
function discriminate(node: any, schemas: Record<string, any>) {
  if (Array.isArray(node)) return node.forEach((n) => discriminate(n, schemas));
  if (!node || typeof node !== 'object') return;
  Object.values(node).forEach((n) => discriminate(n, schemas));
  if (!Array.isArray(node.oneOf) || node.discriminator) return;
  const resolve = (b: any) => (b.$ref ? schemas[b.$ref.split('/').pop()] : b);
  // A branch that is itself only a oneOf (SiteRedirectInputDestination's SiteRedirectDestination) is flattened.
  const flattened = node.oneOf.flatMap((b: any) => {
    const r = resolve(b);
    return r && Array.isArray(r.oneOf) && Object.keys(r).every((k) => ['oneOf', 'discriminator', 'type'].includes(k)) ? r.oneOf : [b];
  });
  const branches = flattened.map(resolve);
  for (const name of ['kind', 'type', 'mode', 'intent', 'target', 'style']) {
    const values = branches.map((b: any) => {
      const prop = b?.type === 'object' && b.required?.includes(name) ? b.properties?.[name] : undefined;
      return prop?.const !== undefined ? [prop.const] : prop?.enum;
    });
    const flat = values.flat();
    if (values.every((v: unknown) => Array.isArray(v)) && new Set(flat).size === flat.length) {
      node.oneOf = flattened;
      node.discriminator = { propertyName: name };
      // Ajv's discriminator lets a non-object through: `null` would then match this and its null sibling.
      node.type = 'object';
      return;
    }
  }
}

export function customizationSchemasText(): string {
  const spec = require('gitbook-api-0202/spec/openapi.json');
  const body = (path: string, method: string) => spec.paths[path][method].requestBody.content['application/json'].schema;
  const site = '/orgs/{organizationId}/sites/{siteId}';
  const requests: Record<string, unknown> = {
    updateSiteCustomizationById: { $ref: '#/components/schemas/SiteCustomizationSettingsBase' },
    overrideSiteSpaceCustomizationById: body(`${site}/site-spaces/{siteSpaceId}/customization`, 'patch'),
    createSiteRedirect: body(`${site}/redirects`, 'post'),
    bulkUpsertSiteRedirects: body(`${site}/redirects`, 'put'),
    // Its items' two kinds, told apart by `intent` (publish, or live/draft/absent) before checking.
    bulkUpsertSiteRedirectsPublish: body(`${site}/redirects`, 'put').properties.redirects.items.oneOf[0],
    bulkUpsertSiteRedirectsUpsert: body(`${site}/redirects`, 'put').properties.redirects.items.oneOf[1],
    updateSiteRedirectById: body(`${site}/redirects/{siteRedirectId}`, 'patch'),
    searchSiteScope: { $ref: '#/components/schemas/SiteSearchScope' },
  };
  const schemas: Record<string, unknown> = {};
  const visit = (node: any) => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    if (typeof node.$ref === 'string') {
      const name = node.$ref.split('/').pop()!;
      if (!(name in schemas)) {
        schemas[name] = spec.components.schemas[name];
        visit(schemas[name]);
      }
    }
    Object.values(node).forEach(visit);
  };
  visit(requests);
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, closed(schemas[k])]),
  );
  const components = { schemas: sorted };
  const out = { source: '@gitbook/api@0.202.0', requests: closed(requests), components };
  discriminate(out, components.schemas);
  return `${JSON.stringify(out, null, 1)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = customizationSchemasText();
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== text) {
      console.error('src/modules/sites/customization-schemas.json is stale: run npx tsx scripts/customization-schemas.ts');
      process.exit(1);
    }
  } else writeFileSync(target, text);
}
