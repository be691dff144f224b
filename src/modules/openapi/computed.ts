import type { Context } from '../../context.js';
import { specPages, type ComputedPage } from './pages.js';

/**
 * What a `builtin:openapi` computed page of a space needs from the organization's spec: the spec's
 * resolved dependency value (GitBook's ComputedContentDependencyOpenAPI) and the pages of its newest
 * successfully processed version. Null when there is no such spec or no processed version yet.
 * No permission check: whoever reads the space reads the pages computed into it, as in GitBook.
 */
export interface ComputedSpec {
  value: { object: 'openapi-spec'; id: string; slug: string; lastVersion?: string; visibility: string };
  pages: ComputedPage[];
}

export async function computedSpec(ctx: Context, organizationId: string, slug: string): Promise<ComputedSpec | null> {
  const spec = await ctx.prisma.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId, slug: slug.toLowerCase() } } });
  if (!spec) return null;
  const version = await ctx.prisma.openAPISpecVersion.findFirst({
    where: { specId: spec.id, state: 'complete' },
    orderBy: { number: 'desc' },
    select: { filesystem: true },
  });
  if (!version?.filesystem) return null;
  return {
    value: {
      object: 'openapi-spec',
      id: spec.id,
      slug: spec.slug,
      ...(spec.lastVersionId ? { lastVersion: spec.lastVersionId } : {}),
      visibility: spec.visibility,
    },
    pages: specPages(version.filesystem),
  };
}

export type { ComputedPage };

/**
 * What the pages computed from these specs depend on, cheaply (no filesystem read): for each slug
 * the newest complete version's id and processing time, or nothing when there is none. Equal
 * answers mean `computedSpec` gives the same pages (conditional GET of revision reads: see
 * src/http/conditional.ts).
 */
export async function computedSpecVersions(ctx: Context, organizationId: string, slugs: string[]): Promise<Map<string, string>> {
  const specs = await ctx.prisma.openAPISpec.findMany({
    where: { organizationId, slug: { in: slugs.map((s) => s.toLowerCase()) } },
    select: {
      slug: true,
      versions: { where: { state: 'complete' }, orderBy: { number: 'desc' }, take: 1, select: { id: true, processedAt: true } },
    },
  });
  return new Map(
    specs.flatMap((s) => (s.versions[0] ? [[s.slug, `${s.versions[0].id}@${s.versions[0].processedAt?.getTime() ?? ''}`] as const] : [])),
  );
}
