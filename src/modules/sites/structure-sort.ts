import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, LecternError, notFound } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import { SiteStructureItem } from './refs.js';
import { moveExternalLink } from './external-link-service.js';
import { moveSectionGroup } from './section-group-service.js';
import { moveSection } from './section-service.js';
import { moveSiteSpace } from './site-space-service.js';
import { siteView } from './structure.js';

/**
 * sortSiteStructure (official 0.202.0): moves one item of a site's structure — a site space, a
 * section or a section group, named by `item: { type, id }` — before or after a sibling
 * (`position: { before | after: { type, id } }`), through the same rules as the per-type move
 * operations (moveSiteSpace: before/after another site space, joining its section; moveSiteSection:
 * before/after another section; moveSiteSectionGroup: before/after a section or group), so it
 * writes one row under the site's lock. An empty `position` moves the item to the end of its level.
 * Errors name this body's fields (`item.id`, `position.before.id`…). External links move before or
 * after a section, a group or another link (external-link-service.ts), and sections and groups
 * before or after a link.
 */

type Pointer = { type?: unknown; id?: unknown };
const TYPES = ['site-space', 'site-section', 'site-section-group', 'site-external-link'];

function readPointer(value: unknown, field: string): { type: string; id: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(field, 'must be an object with type and id');
  const p = value as Pointer;
  if (typeof p.type !== 'string' || !TYPES.includes(p.type)) throw badRequest(`${field}.type`, `must be one of ${TYPES.join(', ')}`);
  if (typeof p.id !== 'string' || !p.id) throw badRequest(`${field}.id`, 'is required');
  return { type: p.type, id: p.id };
}

/** The per-type move's errors name their own input (`position.before.siteSpace`): renamed to this body's. */
async function renamed<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    const m =
      error instanceof LecternError && error.code === 'BAD_REQUEST'
        ? /^(position\.(?:before|after))\.(?:siteSpace|siteSection)(:.*)$/s.exec(error.message)
        : null;
    if (m) throw new LecternError('BAD_REQUEST', `${m[1]}.id${m[2]}`);
    throw error;
  }
}

export async function sortSiteStructure(ctx: Context, organizationId: string, siteId: string, input: unknown) {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw badRequest('body', 'must be an object');
  const body = input as Record<string, unknown>;
  const item = readPointer(body.item, 'item');
  if (body.position === undefined) throw badRequest('position', 'is required (an empty object moves the item to the end)');
  if (body.position !== null && (typeof body.position !== 'object' || Array.isArray(body.position)))
    throw badRequest('position', 'must be an object');
  const position = (body.position ?? {}) as { before?: unknown; after?: unknown };
  if (position.before != null && position.after != null) throw badRequest('position', 'give before or after, not both');
  const which = position.before != null ? 'before' : position.after != null ? 'after' : null;
  const target = which ? readPointer(position[which], `position.${which}`) : null;

  const view = await siteView(ctx, site);
  const to = <K extends string>(key: K) => (target && which ? { [which]: { type: target.type, [key]: target.id } } : null);
  switch (item.type) {
    case 'site-space':
      if (!view.siteSpace(item.id)) throw notFound('Site space');
      return renamed(() => moveSiteSpace(ctx, organizationId, siteId, item.id, { position: to('siteSpace') as never }));
    case 'site-section':
      if (!view.section(item.id)) throw notFound('Site section');
      return renamed(() => moveSection(ctx, organizationId, siteId, item.id, { position: to('siteSection') as never }));
    case 'site-section-group':
      if (!view.group(item.id)) throw notFound('Site section group');
      return renamed(() => moveSectionGroup(ctx, organizationId, siteId, item.id, { position: to('id') as never }));
    default:
      if (!view.link(item.id)) throw notFound('Site external link');
      return moveExternalLink(ctx, organizationId, siteId, item.id, { position: to('id') as never });
  }
}

const StructureItemTypeEnum = builder.enumType('SiteStructureItemType', {
  values: {
    site_space: { value: 'site-space' },
    site_section: { value: 'site-section' },
    site_section_group: { value: 'site-section-group' },
    site_external_link: { value: 'site-external-link' },
  } as const,
});

// Fields are optional: the service names the one missing (`item.id: is required`).
const PointerInput = builder.inputType('SiteStructureItemInput', {
  description: 'An item of the site structure by its type and id',
  fields: (t) => ({
    type: t.field({ type: StructureItemTypeEnum, required: false }),
    id: t.string({ required: false }),
  }),
});

const PositionInput = builder.inputType('SortSiteStructurePositionInput', {
  description: 'before or after a sibling; neither: the end of its level',
  fields: (t) => ({
    before: t.field({ type: PointerInput, required: false }),
    after: t.field({ type: PointerInput, required: false }),
  }),
});

const SortInput = builder.inputType('SortSiteStructureInput', {
  fields: (t) => ({
    item: t.field({ type: PointerInput, required: false, description: 'Required: the item to move' }),
    position: t.field({ type: PositionInput, required: false, description: 'Required (an empty object moves the item to the end)' }),
  }),
});

builder.mutationField('sortSiteStructure', (t) =>
  t.field({
    type: SiteStructureItem,
    description:
      'Moves a site space, section, section group or external link before or after a sibling (official sortSiteStructure); answers the moved item',
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: SortInput, required: true }),
    },
    resolve: (_r, args, ctx) => sortSiteStructure(ctx, String(args.organizationId), String(args.siteId), args.input) as never,
  }),
);
