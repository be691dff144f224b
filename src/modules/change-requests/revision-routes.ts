import { builder } from '../../graphql/builder.js';
import type { RestRoute } from '../../rest/route.js';
import { contentOptions, contentReadRoutes, PAGE_REST_FIELDS, restTree, RevisionType } from '../content/index.js';
import { ChangeRequestType } from './change-request.js';
import { CHANGE_REQUEST_FIELDS } from './routes.js';

/**
 * The revision reads (getCurrentRevision, getRevisionOfChangeRequestById, getRevisionById). The
 * official Revision of type `merge` must name the change request it merged (`mergedFrom`, a whole
 * ChangeRequest): content sits below change requests, so this module adds the field and serves
 * the three reads with it, through content's read table.
 */
builder.objectField(RevisionType, 'mergedFrom', (t) =>
  t.field({
    type: ChangeRequestType,
    nullable: true,
    description: 'For a merge revision: the change request whose merge made it',
    resolve: (view, _args, ctx) =>
      // Only a three-way merge makes a revision of type `merge`; the revision was read with the
      // space's read right, which also covers its change requests.
      view.revision.type === 'merge'
        ? ctx.prisma.changeRequest.findFirst({ where: { spaceId: view.space.id, revisionMerged: view.revision.id } })
        : null,
  }),
);

export const revisionRoutes: RestRoute[] = contentReadRoutes([
  {
    suffix: '',
    spaceOperation: 'getCurrentRevision',
    changeRequestOperation: 'getRevisionOfChangeRequestById',
    revisionOperation: 'getRevisionById',
    args: { computed: 'Boolean' },
    variables: contentOptions,
    selection: `object id parents type pageEntries(computed: $computed) { parentId ...RestPageFields }
      fileList { id name contentType downloadURL size } reusableContents { id title documentId } variables createdAt urls { app }
      mergedFrom { ...ChangeRequestFields }`,
    fragments: `${CHANGE_REQUEST_FIELDS} ${PAGE_REST_FIELDS}`,
    pick: (r) => ({
      object: r.object,
      id: r.id,
      parents: r.parents,
      type: r.type,
      pages: restTree(r.pageEntries),
      files: r.fileList,
      reusableContents: r.reusableContents.map(({ id, title, documentId }: { id: string; title: string; documentId: string }) => ({
        id,
        title,
        document: documentId,
      })),
      // Lectern's content has no tags (nothing writes one).
      tags: [],
      variables: r.variables,
      createdAt: r.createdAt,
      urls: r.urls,
      ...(r.mergedFrom ? { mergedFrom: r.mergedFrom } : {}),
    }),
    // The change request a merge revision names changes (status, title…): no conditional GET.
    live: 'mutable',
  },
]);
