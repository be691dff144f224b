import { builder } from '../../graphql/builder.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { serverKeys } from '../../secrets.js';
import { fileById, fileJson, listFiles, pageTree, type ContentView } from './service.js';
import type { PageNode } from './tree.js';

/**
 * A revision as GraphQL shows it. Its pages are typed in page-type.ts (`pages`, `pageEntries`,
 * `page`, `pageByPath`); `pageList` is a light flat list of them (titles and paths).
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

const RevisionUrls = builder.objectRef<{ app: string }>('RevisionUrls').implement({
  fields: (t) => ({ app: t.exposeString('app', { description: 'The revision in the app' }) }),
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
    variables: t.field({
      type: 'JSON',
      description: 'Free-form: variables are named by the writer and hold any JSON value ({ name: value })',
      resolve: (v) => v.content.manifest.variables,
    }),
    urls: t.field({
      type: RevisionUrls,
      description: 'Where the revision is in the app',
      resolve: (v, _a, ctx) => ctx.urls.revision(v.space.id, v.revision.id),
    }),
    fileList: t.field({
      type: [FileType],
      description: 'Every file of the revision (`files` pages them), as the official revision lists them',
      resolve: async (v, _a, ctx) => {
        const [files, keys] = await Promise.all([v.content.files(), serverKeys(ctx)]);
        return files.map((f) => fileJson(ctx, keys, v.space.id, f));
      },
    }),
  }),
});
