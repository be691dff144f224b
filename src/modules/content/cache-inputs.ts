import { createHash } from 'node:crypto';
import type { Context } from '../../context.js';
import { builder } from '../../graphql/builder.js';
import { computedSpecVersions } from '../openapi/index.js';
import { RevisionType } from './revision.js';
import type { ContentView } from './service.js';

/**
 * What a revision's page reads depend on besides the revision itself. A revision is immutable, but
 * its computed pages (computed-pages.ts) are computed from the newest processed version of an
 * OpenAPI spec, which changes. Conditional GET of the revision reads (src/http/conditional.ts)
 * puts this fingerprint into their ETag and only calls them immutable when it is empty.
 *
 * Cost: the revision's page entries (no bodies) and, only when it has computed pages, one query.
 */
export async function computedInputs(ctx: Context, view: ContentView): Promise<string> {
  const entries = await view.content.allPages();
  const slugs = [
    ...new Set(entries.flatMap((e) => (e.type === 'computed' && e.computed ? [e.computed.dependencies.spec.ref.spec.toLowerCase()] : []))),
  ].sort();
  if (!slugs.length) return '';
  const versions = await computedSpecVersions(ctx, view.space.organizationId, slugs);
  // Opaque: the caller learns that something changed, not which specs or versions.
  return createHash('sha256')
    .update(slugs.map((slug) => `${slug}=${versions.get(slug) ?? ''}`).join('\n'))
    .digest('base64url');
}

builder.objectFields(RevisionType, (t) => ({
  computedInputs: t.string({
    description:
      "Fingerprint of what the revision's computed pages are computed from (the specs' newest processed versions); empty when it has none. It changes when those pages would",
    resolve: (view, _a, ctx) => computedInputs(ctx, view),
  }),
}));
