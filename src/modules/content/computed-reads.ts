import { FREE_DOC } from '../../graphql/free-form.js';
import type { Context } from '../../context.js';
import { documentsOf } from '../../document/index.js';
import { badRequest } from '../../errors.js';
import { builder } from '../../graphql/builder.js';
import type { RestRoute } from '../../rest/route.js';
import { restBodyValue } from '../../rest/typed-body.js';
import { computedSpec } from '../openapi/index.js';
import { checkComputedSource } from './computed-pages.js';
import { ComputedContentSourceInput } from './computed-source-types.js';
import { PAGE_REST_FIELDS, type RestPageFields, restTree } from './page-rest.js';
import { pageInTree, PageType, ReusableContentType } from './page-type.js';
import { FileType, RevisionType } from './revision.js';
import { pageTree, type ContentView } from './service.js';

/**
 * getComputedRevision and getComputedDocument: what a computed source computes, without writing
 * it: the pages of a `builtin:openapi` revision source (as a computed page of the space would show
 * them, ids `<seed>-<slug>`), or the document of one `builtin:openapi` document source (a tag's
 * operations page or the models page, the documents Lectern computes).
 */

function seedOf(value: unknown): string {
  if (typeof value !== 'string' || !value.trim() || value.length > 100) throw badRequest('seed', 'is required (1 to 100 characters)');
  return value;
}

const noSpec = (slug: string) =>
  badRequest('source.dependencies.spec.ref.spec', `the organization has no OpenAPI spec ${slug} with a processed version`);

export async function computedRevision(ctx: Context, view: ContentView, source: unknown, seed: unknown) {
  const checked = checkComputedSource(source, 'source');
  const id = seedOf(seed);
  if (!(await computedSpec(ctx, view.space.organizationId, checked.dependencies.spec.ref.spec)))
    throw noSpec(checked.dependencies.spec.ref.spec);
  // The source as a lone computed page of an otherwise empty revision, computed the way reads compute one.
  const at = view.revision.createdAt.toISOString();
  const lone = {
    ...view,
    content: {
      allPages: async () => [
        {
          id,
          parent: null,
          position: 0,
          type: 'computed' as const,
          title: 'Computed',
          slug: 'computed',
          computed: checked,
          createdAt: at,
          updatedAt: at,
        },
      ],
    },
  } as unknown as ContentView;
  const tree = await pageTree(ctx, lone);
  // Typed pages of that tree, for the space's view (their URLs and document ids are the space's).
  return { pages: tree.roots.map((n) => pageInTree(ctx, view, tree, n.id)!), files: [], reusableContents: [] };
}

const DOCS = ['operations', 'models', 'operation', 'tag', 'info'];

/** A document source's type and dependencies; its props (doc, page) are checked where they are used. */
function checkDocumentSource(value: Record<string, any>) {
  // The revision source's checks cover type and dependencies; the document's props differ.
  checkComputedSource({ ...value, props: { models: true } }, 'source');
  return value;
}

/** What a computed revision source computes: always pages only (a generated page has no files or reusable contents). */
type ComputedRevision = Awaited<ReturnType<typeof computedRevision>>;

const ComputedRevisionType = builder.objectRef<ComputedRevision>('ComputedRevision').implement({
  description: 'The content a computed revision source computes (official getComputedRevision answer)',
  fields: (t) => ({
    pages: t.field({
      type: [PageType],
      description: 'The top-level computed pages; select `children` or `descendants` for the pages below',
      resolve: (r) => r.pages,
    }),
    files: t.field({ type: [FileType], description: 'Always empty: computed pages have no files', resolve: () => [] }),
    reusableContents: t.field({
      type: [ReusableContentType],
      description: 'Always empty: computed pages define no reusable content',
      resolve: () => [],
    }),
  }),
});

export async function computedDocument(ctx: Context, view: ContentView, source: unknown, seed: unknown, schema?: string | null) {
  if (schema && !['current', 'next'].includes(schema)) throw badRequest('schema', 'must be current or next');
  seedOf(seed);
  const value = (source ?? {}) as Record<string, any>;
  const props = value.props as Record<string, unknown> | undefined;
  checkDocumentSource(value);
  if (!props || typeof props !== 'object' || !DOCS.includes(String(props.doc)))
    throw badRequest('source.props.doc', `must be one of ${DOCS.join(', ')}`);
  if (props.doc !== 'operations' && props.doc !== 'models')
    throw badRequest('source.props.doc', 'Lectern computes the operations of a tag (operations) and the models (models) documents');
  if (props.doc === 'operations' && (typeof props.page !== 'string' || !props.page))
    throw badRequest('source.props.page', 'is required: the tag whose operations to compute');
  const slug = String(value.dependencies.spec.ref.spec);
  const spec = await computedSpec(ctx, view.space.organizationId, slug);
  if (!spec) throw noSpec(slug);
  const page = spec.pages.find((p) =>
    props.doc === 'models' ? p.props.doc === 'models' : p.props.doc === 'operations' && p.props.page === props.page,
  );
  if (!page)
    throw badRequest(
      props.doc === 'models' ? 'source.props.doc' : 'source.props.page',
      props.doc === 'models' ? 'the spec declares no models' : `the spec has no operations tagged ${String(props.page)}`,
    );
  return (await documentsOf([page.markdown])).get(page.markdown);
}

builder.objectFields(RevisionType, (t) => ({
  computedRevision: t.field({
    type: ComputedRevisionType,
    description: 'The pages a computed source computes (getComputedRevision)',
    args: { source: t.arg({ type: ComputedContentSourceInput, required: true }), seed: t.arg.string({ required: true }) },
    resolve: (v, args, ctx) => computedRevision(ctx, v, args.source, args.seed),
  }),
  computedDocument: t.field({
    type: 'JSON',
    description: `${FREE_DOC}The document a computed document source computes (getComputedDocument)`,
    args: {
      source: t.arg({ type: ComputedContentSourceInput, required: true }),
      seed: t.arg.string({ required: true }),
      schema: t.arg.string({ required: false }),
    },
    resolve: (v, args, ctx) => computedDocument(ctx, v, args.source, args.seed, args.schema),
  }),
}));

export const computedRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/spaces/:spaceId/content/computed/revision',
    operationId: 'getComputedRevision',
    // Computed pages have no files or reusable contents: those lists are always empty.
    document: `query ComputedRevision($spaceId: ID!, $source: ComputedContentSourceInput!, $seed: String!) {
      space(id: $spaceId) { content { computedRevision(source: $source, seed: $seed) {
        pages { ...RestPageFields descendants { parentId ...RestPageFields } }
        files { id name contentType downloadURL size } reusableContents { id title document: documentId }
      } } }
    } ${PAGE_REST_FIELDS}`,
    variables: (req) => {
      if (req.body.source === undefined) throw badRequest('source', 'is required');
      const seed = seedOf(req.body.seed);
      const source = restBodyValue(req.body.source, 'ComputedContentSourceInput', (v) => checkComputedSource(v, 'source'));
      return { spaceId: req.params.spaceId, source, seed };
    },
    result: (data) => {
      const computed = data.space.content.computedRevision;
      const entries = computed.pages.flatMap(({ descendants, ...page }: RestPageFields & { descendants: RestPageFields[] }) => [
        page,
        ...descendants,
      ]);
      return { ...computed, pages: restTree(entries) };
    },
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/content/computed/document',
    operationId: 'getComputedDocument',
    document: `query ComputedDocument($spaceId: ID!, $source: ComputedContentSourceInput!, $seed: String!, $schema: String) {
      space(id: $spaceId) { content { computedDocument(source: $source, seed: $seed, schema: $schema) } }
    }`,
    variables: (req) => {
      if (req.body.source === undefined) throw badRequest('source', 'is required');
      const seed = seedOf(req.body.seed);
      const source = restBodyValue(req.body.source, 'ComputedContentSourceInput', (v) =>
        checkDocumentSource((v ?? {}) as Record<string, any>),
      );
      return { spaceId: req.params.spaceId, source, seed, schema: req.query.schema || undefined };
    },
    result: (data) => data.space.content.computedDocument,
  },
];
