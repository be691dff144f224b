import { builder } from '../../graphql/builder.js';
import type { ChangeRequestType } from './change-request.js';
import { changeRequestConflicts, type PageConflict } from './conflicts.js';

/** Lectern addition (no GitBook counterpart): what resolving a change request's conflicts with main reads and sends. */
const ChangeRequestConflict = builder.objectRef<PageConflict>('ChangeRequestConflict').implement({
  description: "Lectern addition: one page on which the change request conflicts with main, with the page's three versions",
  fields: (t) => ({
    page: t.exposeID('page', {
      nullable: true,
      description: 'The page id; null for a conflict outside pages (a variable, a reusable content)',
    }),
    title: t.exposeString('title'),
    reasons: t.exposeStringList('reasons', { description: 'Why the merge cannot settle it on its own' }),
    resolvable: t.exposeBoolean('resolvable', {
      description: 'Every conflict of the page is in its body: updateChangeRequestFromMain with a resolution for it settles it',
    }),
    base: t.exposeString('base', {
      nullable: true,
      description: "The page's Markdown where main last came into the change request (null: it did not exist)",
    }),
    main: t.exposeString('main', { nullable: true, description: "The page's Markdown on main now (null: deleted there)" }),
    change: t.exposeString('change', { nullable: true, description: "The page's Markdown in the change request (null: deleted there)" }),
  }),
});

export const ConflictResolutionInput = builder.inputType('ConflictResolutionInput', {
  description: "Lectern addition: a person's resolution of a page whose body conflicts with main",
  fields: (t) => ({
    pageId: t.string({ required: true }),
    markdown: t.string({ required: true, description: "The page's body as it should be after the update" }),
  }),
});

/** Adds `conflicts` to the change request type (called where that type is defined, so there is no import cycle). */
export function addConflictFields(type: typeof ChangeRequestType) {
  builder.objectField(type, 'conflicts', (t) =>
    t.field({
      type: [ChangeRequestConflict],
      // Each is a merge: costed so one query asks it of a page of change requests, not of thousands.
      complexity: { field: 1000, multiplier: 10 },
      description:
        'Lectern addition: what merging main into the change request meets, page by page (empty when it merges cleanly, is up to date or is merged). Resolve with updateChangeRequestFromMain(resolutions)',
      resolve: (cr, _a, ctx) => changeRequestConflicts(ctx, cr),
    }),
  );
}
