import type { ArgBuilder, ObjectRef, SchemaTypes } from '@pothos/core';
import { builder } from './builder.js';
import type { ListPage } from '../pagination.js';
import type { Context } from '../context.js';
import { infoSelects } from './selects.js';

export const NextPage = builder.objectRef<{ page: string }>('NextPage').implement({
  fields: (t) => ({ page: t.exposeString('page', { description: 'Pass as `page` to fetch the following page' }) }),
});

/**
 * Reads, for a page of items at once, what their fields would otherwise each wait for (`selects`:
 * whether the item selection asks for a field), so those fields answer with values, not promises.
 */
export type ItemsPrimer<T> = (ctx: Context, items: readonly T[], selects: (field: string) => boolean) => Promise<void>;

/** The list envelope type for one item type: `{ items, count, next }`. */
export function listOf<T>(name: string, item: ObjectRef<any, T>, prime?: ItemsPrimer<T>) {
  return builder.objectRef<ListPage<T>>(`${name}List`).implement({
    fields: (t) => ({
      // The page size is already counted on the paginated field (`limit`): do not multiply again.
      items: t.field({
        type: [item],
        complexity: { field: 1, multiplier: 1 },
        resolve: (list, _a, ctx, info) =>
          prime && list.items.length ? prime(ctx, list.items, (field) => infoSelects(info, field)).then(() => list.items) : list.items,
      }),
      count: t.exposeInt('count', { description: 'Total number of items in the list' }),
      next: t.field({ type: NextPage, nullable: true, resolve: (list) => list.next ?? null }),
    }),
  });
}

/** `page` and `limit` arguments, the same on every list field. */
export const pageArgs = <T extends SchemaTypes>(t: { arg: ArgBuilder<T> }) => ({
  page: t.arg.string({ required: false, description: 'Identifier of the page of results (from `next.page`)' }),
  limit: t.arg.int({ required: false, description: 'Items per page, 1..1000 (default 50)' }),
});
