import type { Context } from '../../context.js';
import { badRequest } from '../../errors.js';
import { computedSpec } from '../openapi/index.js';
import { hashOf, type PageEntry } from './store.js';
import { uniqueSlug } from './tree.js';
import { isObject } from '../../validate.js';

/**
 * Computed pages (GitBook's RevisionPageComputed): a page whose content is computed from a source
 * instead of written. Lectern computes `builtin:openapi`: the pages of one of the organization's
 * OpenAPI specs (one per tag, and a Models page with `props.models`), from the spec's newest
 * processed version (src/modules/openapi/pages.ts), so the pages follow the spec as it changes.
 *
 * Stored as a page entry of type `computed` holding its source. Read with `computed=true` (the
 * official default) the page is replaced, at its place in the tree, by the pages it computes: plain
 * document pages (the official schema has no valid way to mark a document as computed: its oneOf
 * of `{ computed, computedSeed }` and `{ documentId? }` matches both branches). Read with
 * `computed=false`, or while its spec has no processed version, it is the computed page itself.
 */

export interface ComputedSource {
  type: 'builtin:openapi';
  props: { models: boolean; downloadLink?: boolean; grouping?: 'by-tag' };
  dependencies: { spec: { ref: { kind: 'openapi'; spec: string } } };
}

function only(value: Record<string, unknown>, keys: string[], field: string) {
  for (const key of Object.keys(value))
    if (!keys.includes(key)) throw badRequest(`${field}.${key}`, 'is not a field of this computed source');
}

/** Checks a computed source as written (ComputedContentSourceRevisionOpenAPI); 400s name the field. */
export function checkComputedSource(value: unknown, field: string): ComputedSource {
  if (!isObject(value)) throw badRequest(field, 'must be an object');
  if (value.type !== 'builtin:openapi') throw badRequest(`${field}.type`, 'must be builtin:openapi (the computed source Lectern computes)');
  only(value, ['type', 'props', 'dependencies'], field);
  const props = value.props;
  if (!isObject(props)) throw badRequest(`${field}.props`, 'must be an object');
  only(props, ['models', 'downloadLink', 'grouping'], `${field}.props`);
  if (typeof props.models !== 'boolean') throw badRequest(`${field}.props.models`, 'must be true or false');
  if (props.downloadLink !== undefined && typeof props.downloadLink !== 'boolean')
    throw badRequest(`${field}.props.downloadLink`, 'must be true or false');
  // Lectern's generated pages are grouped by tag (specPages); one page per operation is not made.
  if (props.grouping !== undefined && props.grouping !== 'by-tag')
    throw badRequest(`${field}.props.grouping`, 'must be by-tag (Lectern groups operations by tag)');
  const deps = value.dependencies;
  if (!isObject(deps)) throw badRequest(`${field}.dependencies`, 'must be an object');
  only(deps, ['spec'], `${field}.dependencies`);
  const spec = deps.spec;
  if (!isObject(spec)) throw badRequest(`${field}.dependencies.spec`, 'must be an object');
  only(spec, ['ref'], `${field}.dependencies.spec`);
  const ref = spec.ref;
  if (!isObject(ref)) throw badRequest(`${field}.dependencies.spec.ref`, 'must be an object');
  only(ref, ['kind', 'spec'], `${field}.dependencies.spec.ref`);
  if (ref.kind !== 'openapi') throw badRequest(`${field}.dependencies.spec.ref.kind`, 'must be openapi');
  if (typeof ref.spec !== 'string' || !/^[a-z0-9][a-z0-9_-]{0,99}$/i.test(ref.spec))
    throw badRequest(`${field}.dependencies.spec.ref.spec`, "must be the slug of one of the organization's OpenAPI specs");
  return {
    type: 'builtin:openapi',
    props: {
      models: props.models,
      ...(props.downloadLink !== undefined ? { downloadLink: props.downloadLink } : {}),
      ...(props.grouping ? { grouping: 'by-tag' as const } : {}),
    },
    dependencies: { spec: { ref: { kind: 'openapi', spec: ref.spec.toLowerCase() } } },
  };
}

/**
 * The entries with every computed page replaced by the pages it computes (unchanged when there is
 * none: no query then). Generated bodies are handed to `prime` by hash, so reads find them like
 * stored bodies; generated ids are `<computed page id>-<slug>`, stable while the tag is.
 */
export async function expandComputedPages(
  ctx: Context,
  organizationId: string,
  entries: PageEntry[],
  prime: (hash: string, markdown: string) => void,
): Promise<PageEntry[]> {
  const computed = entries.filter((e) => e.type === 'computed' && e.computed);
  if (!computed.length) return entries;
  const slugs = [...new Set(computed.map((e) => e.computed!.dependencies.spec.ref.spec))];
  const specs = new Map(await Promise.all(slugs.map(async (slug) => [slug, await computedSpec(ctx, organizationId, slug)] as const)));
  const replaced = new Set<string>();
  const generated: PageEntry[] = [];
  for (const page of computed) {
    const spec = specs.get(page.computed!.dependencies.spec.ref.spec);
    if (!spec) continue;
    replaced.add(page.id);
    const pages = spec.pages.filter((p) => p.props.doc !== 'models' || page.computed!.props.models);
    const siblings = entries.filter((e) => e.parent === page.parent && e.id !== page.id);
    pages.forEach((p, i) => {
      const markdown = p.markdown;
      const body = hashOf('body', { markdown });
      prime(body, markdown);
      const slug = uniqueSlug(p.slug, [...siblings, ...generated.filter((g) => g.parent === page.parent)]);
      generated.push({
        id: `${page.id}-${p.slug}`,
        parent: page.parent,
        // Just after the computed page's own place, in the spec's order, before its next sibling
        // (fractional positions keep far larger gaps than this between two siblings).
        position: page.position + (i / Math.max(pages.length, 1)) * 1e-6,
        type: 'document',
        title: p.title,
        slug,
        ...(p.description ? { description: p.description } : {}),
        ...(page.hidden ? { hidden: true } : {}),
        body,
        createdAt: page.createdAt,
        updatedAt: page.updatedAt,
      });
    });
  }
  return [...entries.filter((e) => !replaced.has(e.id)), ...generated];
}
