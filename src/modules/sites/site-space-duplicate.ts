import type { Context } from '../../context.js';
import { requireSite } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import { newId } from '../../ids.js';
import type { RestRoute } from '../../rest/route.js';
import { byPosition } from '../../positions.js';
import { duplicateSpace } from '../spaces/index.js';
import * as input from './input.js';
import { SiteSpaceRef } from './refs.js';
import { positionAt, writeSite } from './site-service.js';
import { siteView } from './structure.js';

/**
 * duplicateSiteSpace (official 0.202.0): the site space's space is duplicated (the spaces module's
 * duplicateSpace: "<title> (copy)" beside it, sharing its content, searchable at once) and the copy
 * joins the site right after the original, in the same section, with its condition, hidden switch
 * and customization override. Needs the right to change the site, to read the space and to create
 * spaces where it is. `draft: true` is a 400: Lectern's site spaces are never drafts (every
 * SiteSpace answers `draft: false`). Should the site space vanish between the copy and the link
 * (a concurrent delete), the copied space stays in the organization and the answer is a 404.
 */
export async function duplicateSiteSpace(ctx: Context, organizationId: string, siteId: string, siteSpaceId: string, body: unknown) {
  const site = await requireSite(ctx, organizationId, siteId, 'write');
  const fields = (body ?? {}) as Record<string, unknown>;
  if (typeof fields !== 'object' || Array.isArray(fields)) throw badRequest('body', 'must be an object');
  for (const key of Object.keys(fields)) if (key !== 'draft') throw badRequest(key, 'is not a field of this operation');
  if (fields.draft !== undefined && typeof fields.draft !== 'boolean') throw badRequest('draft', 'must be a boolean');
  if (fields.draft === true) throw badRequest('draft', 'site spaces are never drafts in Lectern');
  const source = (await siteView(ctx, site)).siteSpace(siteSpaceId);
  if (!source) throw notFound('Site space');
  const copy = await duplicateSpace(ctx, source.spaceId);
  return writeSite(ctx, siteId, async (tx, view) => {
    const original = view.siteSpace(siteSpaceId);
    if (!original) throw notFound('Site space');
    const siblings = view
      .spacesIn(original.sectionId)
      .map((ss) => ({ id: ss.id, position: ss.position, path: ss.path, kind: 'siteSpace' as const }))
      .sort(byPosition);
    const path = input.uniquePath(
      copy.title,
      siblings.map((s) => s.path),
      'space',
    );
    const position = await positionAt(tx, siblings, siblings.findIndex((s) => s.id === original.id) + 1);
    const created = await tx.siteSpace.create({
      data: {
        id: newId(),
        siteId,
        sectionId: original.sectionId,
        spaceId: copy.id,
        path,
        position,
        condition: original.condition,
        hidden: original.hidden,
      },
    });
    const override = await tx.siteSpaceCustomization.findUnique({ where: { siteSpaceId: original.id } });
    if (override) await tx.siteSpaceCustomization.create({ data: { siteSpaceId: created.id, override: override.override as object } });
    return created;
  });
}

const DuplicateInput = builder.inputType('DuplicateSiteSpaceInput', {
  fields: (t) => ({ draft: t.boolean({ required: false, description: 'Only false: site spaces are never drafts in Lectern' }) }),
});

builder.mutationField('duplicateSiteSpace', (t) =>
  t.field({
    type: SiteSpaceRef,
    description:
      "Duplicates a site space's space and puts the copy right after it in the site (official duplicateSiteSpace); answers the new site space",
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      id: t.arg.id({ required: true }),
      input: t.arg({ type: DuplicateInput, required: false }),
    },
    resolve: (_r, args, ctx) =>
      duplicateSiteSpace(ctx, String(args.organizationId), String(args.siteId), String(args.id), args.input ?? {}),
  }),
);

/** Its REST route (routes.ts passes the site-space fragment in). */
export const duplicateSiteSpaceRoute = (siteSpaceFields: string): RestRoute => ({
  method: 'POST',
  path: '/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/duplicate',
  operationId: 'duplicateSiteSpace',
  document: `mutation duplicateSiteSpace($organizationId: ID!, $siteId: ID!, $id: ID!, $input: DuplicateSiteSpaceInput) {
    duplicateSiteSpace(organizationId: $organizationId, siteId: $siteId, id: $id, input: $input) { ...SiteSpaceFields }
  } ${siteSpaceFields}`,
  variables: (req) => ({
    organizationId: req.params.organizationId,
    siteId: req.params.siteId,
    id: req.params.siteSpaceId,
    input: req.body,
  }),
  result: (data) => data.duplicateSiteSpace,
  status: 201,
  location: (ss, req) => `/orgs/${req.params.organizationId}/sites/${req.params.siteId}/site-spaces/${ss.id}`,
});
