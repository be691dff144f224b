import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import {
  fileById,
  type fileJson,
  listFiles,
  pageById,
  pagesJson,
  pageTree,
  revisionJson,
  type ContentView,
  type Format,
} from './service.js';
import type { PageNode } from './tree.js';

/**
 * A revision as GraphQL shows it. The page tree is recursive to any depth, which a GraphQL
 * selection cannot follow, so `pages` is the GitBook JSON tree (the REST shape) and `pageList`
 * the same pages flat and typed.
 */
export const RevisionType = builder.objectRef<ContentView>('Revision');
export const FileType = builder.objectRef<ReturnType<typeof fileJson>>('RevisionFile');
const FileList = listOf('RevisionFile', FileType);

FileType.implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    contentType: t.exposeString('contentType'),
    downloadURL: t.exposeString('downloadURL'),
    size: t.exposeInt('size'),
  }),
});

const PageSummary = builder
  .objectRef<{ id: string; title: string; type: string; path: string; parent: string | null; depth: number }>('PageSummary')
  .implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      title: t.exposeString('title'),
      type: t.exposeString('type'),
      path: t.exposeString('path'),
      parent: t.exposeString('parent', { nullable: true }),
      depth: t.exposeInt('depth'),
    }),
  });

export const FormatEnum = builder.enumType('ContentFormat', {
  values: { markdown: { value: 'markdown' }, document: { value: 'document' } } as const,
});

RevisionType.implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'revision' }),
    id: t.id({ resolve: (v) => v.revision.id }),
    parents: t.stringList({ resolve: (v) => v.revision.parents }),
    type: t.string({ resolve: (v) => v.revision.type }),
    createdAt: t.field({ type: 'DateTime', resolve: (v) => v.revision.createdAt }),
    pages: t.field({
      type: 'JSON',
      description: 'The page tree, in the GitBook REST shape',
      args: {
        computed: t.arg.boolean({
          required: false,
          description: 'false: computed pages as they are (default: replaced by the pages they compute)',
        }),
      },
      resolve: async (v, args, ctx) => (await pagesJson(ctx, v, { computed: args.computed })).pages,
    }),
    pageList: t.field({
      type: [PageSummary],
      description: 'Every page, depth first',
      // From the tree alone: a flat list of titles and paths reads no page body.
      resolve: async (v, _a, ctx) => {
        const { roots } = await pageTree(ctx, v);
        const out: { id: string; title: string; type: string; path: string; parent: string | null; depth: number }[] = [];
        const walk = (nodes: PageNode[], parent: string | null, depth: number) =>
          nodes.forEach(
            (n) => (
              out.push({ id: n.id, title: n.title, type: n.type, path: n.type === 'link' ? '' : n.path, parent, depth }),
              walk(n.children, n.id, depth + 1)
            ),
          );
        walk(roots, null, 0);
        return out;
      },
    }),
    files: t.field({ type: FileList, args: pageArgs(t), resolve: (v, args, ctx) => listFiles(ctx, v, args) }),
    file: t.field({
      type: FileType,
      args: { id: t.arg.id({ required: true }) },
      resolve: (v, { id }, ctx) => fileById(ctx, v, String(id)),
    }),
    page: t.field({
      type: 'JSON',
      description: 'One page with its body (GitBook shape)',
      args: {
        id: t.arg.id({ required: true }),
        format: t.arg({ type: FormatEnum, required: false }),
        evaluated: t.arg.string({ required: false }),
        dereferenced: t.arg.string({ required: false }),
        computed: t.arg.boolean({ required: false }),
      },
      resolve: (v, args, ctx) =>
        pageById(ctx, v, String(args.id), {
          format: args.format as Format | null,
          evaluated: args.evaluated,
          dereferenced: args.dereferenced,
          computed: args.computed,
        }),
    }),
    variables: t.field({
      type: 'JSON',
      description: 'Free-form: variables are named by the writer and hold any JSON value ({ name: value })',
      resolve: (v) => v.content.manifest.variables,
    }),
    rest: t.field({
      type: 'JSON',
      description: 'The whole revision in the GitBook REST shape',
      args: { computed: t.arg.boolean({ required: false }) },
      resolve: (v, args, ctx) => revisionJson(ctx, v, { computed: args.computed }),
    }),
  }),
});
