import { builder } from '../../graphql/builder.js';

/** A pointer to a sibling: `{ type: 'space', space }` or `{ type: 'collection', collection }`. */
const ContentPointerInput = builder.inputType('ContentPointerInput', {
  fields: (t) => ({ type: t.string({ required: true }), space: t.id(), collection: t.id() }),
});

export const ContentPositionInput = builder.inputType('ContentPositionInput', {
  fields: (t) => ({ before: t.field({ type: ContentPointerInput }), after: t.field({ type: ContentPointerInput }) }),
});
