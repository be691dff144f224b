import type { Context } from '../../context.js';
import { OPENAPI_WRITE_ROLE, requireOrg } from '../../auth/permissions.js';
import { badRequest, conflict, LecternError, notFound } from '../../errors.js';
import type { OpenAPISpec, OpenAPISpecVersion, Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { enqueueJob } from '../../jobs/queue.js';
import { paginate, type PageArgs } from '../../pagination.js';
import * as check from '../../validate.js';
import { openAPIFetchSettings, urlProblem } from './fetch.js';
import { OPENAPI_JOB, OPENAPI_JOB_ATTEMPTS } from './jobs.js';

/**
 * OpenAPI specs of an organization, and their versions.
 * - A spec is named by a slug, unique in its organization. The seed allows upper-case letters
 *   (`^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$`), the official schema only lower case: slugs are accepted
 *   in any case and kept in lower case, so `Payments-API` and `payments-api` name the same spec and
 *   every answer matches the official pattern. At most 100 characters (official schema).
 * - Its source is `{ url }` (fetched) or `{ text }` (the spec itself, for specs without a public
 *   URL; the official `OpenAPISpecSource` has this variant too). Exactly one of them.
 * - Creating a spec, and every PUT of its source, records a new version (`lastVersion` names it at
 *   once) and queues its processing (fetch, parse, validate: src/modules/openapi/jobs.ts). The spec's
 *   `processingState` goes pending → progress → complete; a failed processing also ends `complete`,
 *   with `lastProcessErrorCode` and `lastProcessedErrors` set, and the previous good version keeps
 *   being served as the latest content.
 * - Versions are listed newest first. `versions/latest` is the newest version (the one `lastVersion`
 *   names); `versions/latest/content` is the content of the newest version whose processing
 *   succeeded. The content of a version not (or not successfully) processed is a 404 that says why.
 * - Every member reads; writing needs `create` or `admin` (src/auth/permissions.ts).
 */
export const VISIBILITIES = ['private', 'public'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

const SLUG = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/;

export function specSlug(field: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw badRequest(field, 'is required');
  check.text(field, value, { min: 1, max: 100 });
  if (!SLUG.test(value)) throw badRequest(field, 'must be letters and digits, in groups joined by single hyphens (e.g. "payments-api")');
  return value.toLowerCase();
}

export type SpecSource = { url: string; text: null } | { url: null; text: string };

export interface SourceInput {
  url?: string | null;
  text?: string | null;
}

export function specSource(value: SourceInput | null | undefined): SpecSource {
  if (value == null) throw badRequest('source', 'is required: { "url": "https://…" } or { "text": "<the spec in JSON or YAML>" }');
  const hasUrl = value.url != null;
  const hasText = value.text != null;
  if (hasUrl && hasText) throw badRequest('source', 'give either url or text, not both');
  if (hasUrl) {
    const url = check.url('source.url', value.url!.trim());
    const problem = urlProblem(url);
    if (problem) throw badRequest('source.url', problem);
    return { url, text: null };
  }
  if (hasText) {
    const text = value.text!;
    if (!text.trim()) throw badRequest('source.text', 'must not be empty');
    const max = openAPIFetchSettings().maxBytes;
    if (Buffer.byteLength(text, 'utf8') > max) throw badRequest('source.text', `must be at most ${max} bytes`);
    return { url: null, text };
  }
  throw badRequest('source', 'needs url (where to fetch the spec) or text (the spec itself)');
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === 'P2002';

async function findSpec(ctx: Context, organizationId: string, slug: string) {
  return ctx.prisma.openAPISpec.findUnique({ where: { organizationId_slug: { organizationId, slug: slug.toLowerCase() } } });
}

/** A spec of the organization the caller reads (404 when there is none). */
export async function getSpec(ctx: Context, organizationId: string, slug: string): Promise<OpenAPISpec> {
  await requireOrg(ctx, organizationId);
  const spec = await findSpec(ctx, organizationId, slug);
  if (!spec) throw notFound('OpenAPI specification');
  return spec;
}

export async function listSpecs(ctx: Context, organizationId: string, args: PageArgs) {
  await requireOrg(ctx, organizationId);
  const where = { organizationId };
  return paginate(
    args,
    () => ctx.prisma.openAPISpec.count({ where }),
    (w) => ctx.prisma.openAPISpec.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...w }),
  );
}

/** Records a new version of a spec (inside the caller's transaction) and queues its processing. */
async function recordVersion(tx: Prisma.TransactionClient, specId: string, source: SpecSource): Promise<OpenAPISpec> {
  // The increment takes the spec's row lock: concurrent updates get distinct numbers, in order.
  const { versionCount } = await tx.openAPISpec.update({
    where: { id: specId },
    data: { versionCount: { increment: 1 } },
    select: { versionCount: true },
  });
  const version = await tx.openAPISpecVersion.create({
    data: { id: newId(), specId, number: versionCount, sourceURL: source.url, text: source.text },
  });
  await enqueueJob(tx, OPENAPI_JOB, { specId, versionId: version.id }, { maxAttempts: OPENAPI_JOB_ATTEMPTS });
  return tx.openAPISpec.update({
    where: { id: specId },
    data: { lastVersionId: version.id, sourceURL: source.url, processingState: 'pending' },
  });
}

async function insertSpec(ctx: Context, organizationId: string, slug: string, source: SpecSource) {
  return ctx.prisma.$transaction(async (tx) => {
    const spec = await tx.openAPISpec.create({ data: { id: newId(), organizationId, slug, sourceURL: source.url } });
    return recordVersion(tx, spec.id, source);
  });
}

const slugTaken = (slug: string) =>
  conflict(
    `slug: an OpenAPI specification "${slug}" already exists in this organization (PUT /orgs/{organizationId}/openapi/${slug} updates it)`,
  );

export async function createSpec(ctx: Context, organizationId: string, input: { slug?: string | null; source?: SourceInput | null }) {
  await requireOrg(ctx, organizationId, OPENAPI_WRITE_ROLE);
  const slug = specSlug('slug', input.slug);
  const source = specSource(input.source);
  if (await findSpec(ctx, organizationId, slug)) throw slugTaken(slug);
  try {
    return await insertSpec(ctx, organizationId, slug, source);
  } catch (error) {
    if (isUniqueViolation(error)) throw slugTaken(slug);
    throw error;
  }
}

/** PUT: a new version of the spec when it exists, else the spec created with this slug. */
export async function putSpec(ctx: Context, organizationId: string, rawSlug: string, input: { source?: SourceInput | null }) {
  await requireOrg(ctx, organizationId, OPENAPI_WRITE_ROLE);
  const slug = specSlug('specSlug', rawSlug);
  const source = specSource(input.source);
  for (let attempt = 0; ; attempt++) {
    const existing = await findSpec(ctx, organizationId, slug);
    if (existing) {
      try {
        return { spec: await ctx.prisma.$transaction((tx) => recordVersion(tx, existing.id, source)), created: false };
      } catch (error) {
        // Deleted meanwhile: create it again (once).
        if ((error as { code?: string }).code !== 'P2025' || attempt > 0) throw error;
        continue;
      }
    }
    try {
      return { spec: await insertSpec(ctx, organizationId, slug, source), created: true };
    } catch (error) {
      // Created meanwhile by another request: add a version to it instead (once).
      if (!isUniqueViolation(error) || attempt > 0) throw error;
    }
  }
}

/** Deletes a spec and its versions; 404 when there is none. */
export async function deleteSpec(ctx: Context, organizationId: string, slug: string) {
  await requireOrg(ctx, organizationId, OPENAPI_WRITE_ROLE);
  const { count } = await ctx.prisma.openAPISpec.deleteMany({ where: { organizationId, slug: slug.toLowerCase() } });
  if (!count) throw notFound('OpenAPI specification');
  return true;
}

export async function updateSpec(ctx: Context, organizationId: string, slug: string, input: { visibility?: Visibility | null }) {
  await requireOrg(ctx, organizationId, OPENAPI_WRITE_ROLE);
  if (input.visibility == null) throw badRequest('visibility', 'is required: private or public');
  if (!VISIBILITIES.includes(input.visibility)) throw badRequest('visibility', 'must be private or public');
  const spec = await findSpec(ctx, organizationId, slug);
  if (!spec) throw notFound('OpenAPI specification');
  return ctx.prisma.openAPISpec.update({ where: { id: spec.id }, data: { visibility: input.visibility } });
}

// ----- versions --------------------------------------------------------------------------------

/** A version with what its URLs need from its spec. */
export type VersionView = OpenAPISpecVersion & { spec: Pick<OpenAPISpec, 'organizationId' | 'slug'> };

const withSpec = (spec: OpenAPISpec, version: OpenAPISpecVersion): VersionView => ({
  ...version,
  spec: { organizationId: spec.organizationId, slug: spec.slug },
});

// Lists and single versions leave the (possibly large) filesystem and text out; content reads them.
const VERSION_SUMMARY = {
  id: true,
  specId: true,
  number: true,
  sourceURL: true,
  state: true,
  errorCode: true,
  errors: true,
  processedAt: true,
  createdAt: true,
} as const;
const summary = (v: Omit<OpenAPISpecVersion, 'filesystem' | 'text'>): OpenAPISpecVersion => ({ ...v, filesystem: null, text: null });

export async function listVersions(ctx: Context, spec: OpenAPISpec, args: PageArgs) {
  const where = { specId: spec.id };
  const page = await paginate(
    args,
    () => ctx.prisma.openAPISpecVersion.count({ where }),
    (w) => ctx.prisma.openAPISpecVersion.findMany({ where, select: VERSION_SUMMARY, orderBy: { number: 'desc' }, ...w }),
  );
  return { ...page, items: page.items.map((v) => withSpec(spec, summary(v))) };
}

const noVersion = () => notFound('OpenAPI specification version');

export async function getVersion(ctx: Context, spec: OpenAPISpec, versionId: string): Promise<VersionView> {
  const version = await ctx.prisma.openAPISpecVersion.findFirst({ where: { id: versionId, specId: spec.id }, select: VERSION_SUMMARY });
  if (!version) throw noVersion();
  return withSpec(spec, summary(version));
}

/** The newest version: the one `lastVersion` names. */
export async function latestVersion(ctx: Context, spec: OpenAPISpec): Promise<VersionView> {
  if (!spec.lastVersionId) throw noVersion();
  return getVersion(ctx, spec, spec.lastVersionId);
}

export interface VersionContent {
  filesystem: unknown;
  url: string;
  /** `source`: where it was read (= url); `public`: the same, while the spec is public (its text is then served without a token). */
  urls: { source: string; public: string | null };
}

/** Where a version can be read: its source URL, or Lectern's URL of the text given. */
export const versionUrl = (ctx: Pick<Context, 'urls'>, version: VersionView) =>
  version.sourceURL ?? ctx.urls.openAPIVersionText(version.spec.organizationId, version.spec.slug, version.id);

const contentOf = (ctx: Context, spec: OpenAPISpec, version: OpenAPISpecVersion): VersionContent => {
  const url = versionUrl(ctx, withSpec(spec, version));
  return { filesystem: version.filesystem, url, urls: { source: url, public: spec.visibility === 'public' ? url : null } };
};

/** Why a version has no content yet (or will not have any). */
function notProcessed(version: Pick<OpenAPISpecVersion, 'state' | 'errorCode' | 'errors'>) {
  if (version.state === 'failed') {
    const first = (version.errors as unknown as { message?: string }[] | null)?.[0]?.message?.split('\n')[0];
    return new LecternError(
      'NOT_FOUND',
      `OpenAPI specification version content not found: its processing failed (${version.errorCode ?? 'INTERNAL'}${first ? `: ${first}` : ''})`,
    );
  }
  return new LecternError(
    'NOT_FOUND',
    `OpenAPI specification version content not found: its processing is ${version.state === 'progress' ? 'in progress' : 'pending'}, try again shortly`,
  );
}

export async function versionContent(ctx: Context, spec: OpenAPISpec, versionId: string): Promise<VersionContent> {
  const version = await ctx.prisma.openAPISpecVersion.findFirst({ where: { id: versionId, specId: spec.id } });
  if (!version) throw noVersion();
  if (version.state !== 'complete' || version.filesystem == null) throw notProcessed(version);
  return contentOf(ctx, spec, version);
}

/** The content of the newest successfully processed version (a failed newer one leaves it served). */
export async function latestContent(ctx: Context, spec: OpenAPISpec): Promise<VersionContent> {
  const version = await ctx.prisma.openAPISpecVersion.findFirst({
    where: { specId: spec.id, state: 'complete' },
    orderBy: { number: 'desc' },
  });
  if (!version) {
    const newest = await ctx.prisma.openAPISpecVersion.findFirst({
      where: { specId: spec.id },
      orderBy: { number: 'desc' },
      select: { state: true, errorCode: true, errors: true },
    });
    throw newest ? notProcessed(newest) : noVersion();
  }
  return contentOf(ctx, spec, version);
}
