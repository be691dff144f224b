import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import type { Prisma, Site } from '../../generated/prisma/client.js';
import { checkOfficial } from './customization-validate.js';
import { defaultCustomization } from './published-service.js';
import { invalidateSite, type SiteView } from './structure.js';
import { isObject } from '../../validate.js';

/**
 * Site customization (official getSiteCustomizationById / updateSiteCustomizationById and the
 * site-space override get / override / delete).
 *
 * - The site's settings are stored as the last PUT body (SiteCustomizationSettingsInput, checked
 *   against the official schema). The PUT is a full replacement, as the official operation says:
 *   what the body leaves out reverts to the defaults (`defaultCustomization`), nested objects
 *   included (a body with `styling: { primaryColor }` keeps the default theme, corners, …). A read
 *   answers the defaults with the stored settings laid over them, titled after the site unless a
 *   title is set; `updatedAt` only once settings were stored.
 * - A site space's override stores only what it overrides. A PATCH merges into it (objects deeply,
 *   arrays whole) and a null removes that override (the site's value shows again). Its reads answer
 *   the site's effective settings with the override laid over them; `updatedAt` is the later of the two.
 * - The 0.146.0 switches the defaults still carry (`pageActions.externalAI/markdown/mcp`,
 *   `pdf.enabled`) follow 0.202.0's `pageActions.items`, so the two descriptions never disagree.
 */
export type Customization = ReturnType<typeof defaultCustomization> & Record<string, any>;
type Json = Record<string, any>;

/** `over` laid over `base`: objects merged deeply, anything else (arrays included) replaced. */
export function deepMerge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k], v) : v;
  return out;
}

/** A PATCH into an override: objects merged, null removes the key, objects left empty are dropped. */
function patchOverride(base: Json, patch: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (isObject(v)) {
      const merged = patchOverride(isObject(out[k]) ? out[k] : {}, v);
      if (Object.keys(merged).length) out[k] = merged;
      else delete out[k];
    } else out[k] = v;
  }
  return out;
}

/** The defaults as the 0.202.0 input schema has them (no title: the site's own fills it at read time). */
function officialDefaults(): Json {
  const { title: _title, pdf: _pdf, git: _git, ...rest } = defaultCustomization('') as Json;
  const { externalAI: _a, markdown: _m, mcp: _c, ...pageActions } = rest.pageActions;
  return { ...rest, pageActions };
}

/** Keeps the 0.146.0 page-action switches in line with 0.202.0's ordered list. */
function withLegacySwitches(settings: Json): Customization {
  const items: string[] = settings.pageActions?.items ?? [];
  return {
    ...settings,
    pageActions: {
      ...settings.pageActions,
      externalAI: items.includes('external-ai'),
      markdown: items.includes('markdown'),
      mcp: items.includes('mcp'),
    },
    pdf: { ...settings.pdf, enabled: items.includes('pdf') },
  } as Customization;
}

/**
 * A PUT body as 0.146.0 writes it (that description requires `pdf`, `git` and the page-action
 * switches, which 0.202.0 replaced by `pageActions.items`), or a GET answer sent back: the switches
 * become the list when the body has none, `git` is kept as given (read back as sent), `updatedAt`
 * (read-only) is dropped. Checked like the rest (`pdf.enabled`, the switches: booleans).
 */
function fromLegacy(body: Json): Json {
  const { updatedAt: _updatedAt, pdf, git, ...rest } = body;
  const out: Json = { ...rest };
  const flag = (field: string, value: unknown) => {
    if (value !== undefined && typeof value !== 'boolean') throw badRequest(field, 'must be a boolean');
    return value as boolean | undefined;
  };
  const pdfEnabled =
    pdf === undefined
      ? undefined
      : isObject(pdf)
        ? flag('pdf.enabled', pdf.enabled)
        : (() => {
            throw badRequest('pdf', 'must be an object');
          })();
  if (isObject(body.pageActions)) {
    const { externalAI, markdown, mcp, ...actions } = body.pageActions;
    const switches = {
      'external-ai': flag('pageActions.externalAI', externalAI),
      markdown: flag('pageActions.markdown', markdown),
      mcp: flag('pageActions.mcp', mcp),
      pdf: pdfEnabled,
    };
    if (actions.items === undefined && Object.values(switches).some((v) => v !== undefined)) {
      actions.items = Object.entries(switches)
        .filter(([, on]) => on !== false)
        .map(([name]) => name);
    }
    out.pageActions = actions;
  } else if (pdfEnabled !== undefined && body.pageActions === undefined) {
    out.pageActions = { items: ['external-ai', 'markdown', 'mcp', ...(pdfEnabled ? ['pdf'] : [])] };
  }
  if (git !== undefined) {
    if (
      !isObject(git) ||
      Object.keys(git).some((k) => k !== 'showEditLink') ||
      (git.showEditLink !== undefined && typeof git.showEditLink !== 'boolean')
    ) {
      throw badRequest('git', 'must be { showEditLink: boolean }');
    }
    out.git = git;
  }
  return out;
}

const effective = (title: string, stored: Json | null | undefined): Customization =>
  withLegacySwitches(deepMerge(defaultCustomization(title) as Json, stored ?? {}));

function stamped(settings: Customization, ...dates: (Date | null | undefined)[]): Customization {
  const last = dates.filter((d): d is Date => !!d).sort((a, b) => b.getTime() - a.getTime())[0];
  return last ? { ...settings, updatedAt: last.toISOString() } : settings;
}

async function siteSpaceOf(ctx: Context, siteId: string, siteSpaceId: string) {
  const siteSpace = await ctx.prisma.siteSpace.findFirst({ where: { id: siteSpaceId, siteId }, select: { id: true, customization: true } });
  if (!siteSpace) throw notFound('Site space');
  return siteSpace;
}

/**
 * The effective customization of a site, or of one of its site spaces (the site's with the site
 * space's override laid over it). No permission check: for the published site's own renderer
 * (src/modules/reader), which has decided the visitor may see the site.
 */
export async function siteCustomization(
  ctx: Pick<Context, 'prisma'>,
  site: Pick<Site, 'id' | 'title'>,
  siteSpaceId?: string | null,
): Promise<Customization> {
  const [row, override] = await Promise.all([
    ctx.prisma.siteCustomization.findUnique({ where: { siteId: site.id } }),
    siteSpaceId ? ctx.prisma.siteSpaceCustomization.findFirst({ where: { siteSpaceId, siteSpace: { siteId: site.id } } }) : null,
  ]);
  const base = effective(site.title, row?.settings as Json | undefined);
  if (!override) return stamped(base, row?.updatedAt);
  return stamped(withLegacySwitches(deepMerge(base, override.override as Json)), row?.updatedAt, override.updatedAt);
}

/** Every customization of a published site: `{ site, siteSpaces: { [siteSpaceId]: … } }` in two statements. */
export async function siteCustomizations(ctx: Pick<Context, 'prisma'>, view: SiteView) {
  const [row, overrides] = await Promise.all([
    ctx.prisma.siteCustomization.findUnique({ where: { siteId: view.site.id } }),
    ctx.prisma.siteSpaceCustomization.findMany({ where: { siteSpace: { siteId: view.site.id } } }),
  ]);
  const site = stamped(effective(view.site.title, row?.settings as Json | undefined), row?.updatedAt);
  const byId = new Map(overrides.map((o) => [o.siteSpaceId, o]));
  const forSpace = (id: string) => {
    const o = byId.get(id);
    return o ? stamped(withLegacySwitches(deepMerge(site, o.override as Json)), row?.updatedAt, o.updatedAt) : site;
  };
  return { site, siteSpaces: Object.fromEntries(view.siteSpaces.map((ss) => [ss.id, forSpace(ss.id)])) };
}

export async function getSiteCustomization(ctx: Context, organizationId: string, siteId: string, siteSpaceId?: string) {
  const site = await requireSite(ctx, organizationId, siteId);
  if (siteSpaceId) await siteSpaceOf(ctx, siteId, siteSpaceId);
  return siteCustomization(ctx, site, siteSpaceId);
}

function bodyObject(body: unknown): Json {
  if (!isObject(body)) throw badRequest('body', 'must be a JSON object');
  return body;
}

/**
 * A replacement body (0.202.0's or 0.146.0's) as the settings to store, or a 400 naming the first
 * thing wrong. The REST route checks its body with this before it becomes GraphQL input, so its
 * 400s name the body's own fields.
 */
export function checkedSettings(body: unknown): Json {
  const settings = fromLegacy(bodyObject(body));
  // Checked as the defaults with the body laid over them: unknown fields and bad values are named,
  // required settings the body leaves out are the defaults'.
  const { git: _git, ...checked } = settings;
  checkOfficial('updateSiteCustomizationById', deepMerge(officialDefaults(), checked));
  return settings;
}

/** An override body checked against the official schema (see checkedSettings). */
export function checkedOverride(body: unknown): Json {
  const patch = bodyObject(body);
  checkOfficial('overrideSiteSpaceCustomizationById', patch);
  return patch;
}

export async function updateSiteCustomization(ctx: Context, organizationId: string, siteId: string, body: unknown) {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  const settings = checkedSettings(body);
  const data = { settings: settings as Prisma.InputJsonObject };
  await ctx.prisma.siteCustomization.upsert({ where: { siteId }, create: { siteId, ...data }, update: data });
  invalidateSite(ctx, siteId);
  return siteCustomization(ctx, site);
}

export async function overrideSiteSpaceCustomization(
  ctx: Context,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  body: unknown,
) {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  const patch = checkedOverride(body);
  const siteSpace = await siteSpaceOf(ctx, siteId, siteSpaceId);
  const override = patchOverride((siteSpace.customization?.override as Json | undefined) ?? {}, patch) as Prisma.InputJsonObject;
  await ctx.prisma.siteSpaceCustomization.upsert({ where: { siteSpaceId }, create: { siteSpaceId, override }, update: { override } });
  invalidateSite(ctx, siteId);
  return siteCustomization(ctx, site, siteSpaceId);
}

/** Removes a site space's override; false when it had none. */
export async function deleteSiteSpaceCustomization(
  ctx: Context,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, 'write');
  await siteSpaceOf(ctx, siteId, siteSpaceId);
  const { count } = await ctx.prisma.siteSpaceCustomization.deleteMany({ where: { siteSpaceId } });
  invalidateSite(ctx, siteId);
  return count > 0;
}
