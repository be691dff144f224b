import { builder } from '../../graphql/builder.js';

/**
 * Content references (official ContentRef): where a link page, a cover, a meta link or a tag
 * points. One object type per kind, as a union, so a client sees which fields a kind has.
 */
export type ContentRefJson = { kind: string } & Record<string, string | undefined>;

const kindField = (kind: string) => (t: any) => t.string({ description: `Always ${kind}`, resolve: () => kind });
// Every field but `kind` is nullable: the members of the union share names (page, space) that one
// kind requires and another leaves optional, and a selection of the union must not conflict.
const refType = (name: string, kind: string, fields: Record<string, string>, description: string) =>
  builder.objectRef<ContentRefJson>(name).implement({
    description,
    fields: (t) => ({
      kind: kindField(kind)(t),
      ...Object.fromEntries(
        Object.entries(fields).map(([field, about]) => [
          field,
          t.string({ nullable: true, description: about, resolve: (r: ContentRefJson) => r[field] ?? null }),
        ]),
      ),
    }),
  });

const ContentRefUrl = refType('ContentRefURL', 'url', { url: 'The URL' }, 'A URL');
const ContentRefPage = refType(
  'ContentRefPage',
  'page',
  { page: 'Page id', space: 'The space of the page (none: the current one)' },
  'A page',
);
const ContentRefFile = refType(
  'ContentRefFile',
  'file',
  { file: 'File id', space: 'The space of the file (none: the current one)' },
  'A file',
);
const ContentRefAnchor = refType(
  'ContentRefAnchor',
  'anchor',
  { anchor: 'The anchor (a heading id)', page: 'The page (none: the current one)', space: 'The space (none: the current one)' },
  'A heading of a page',
);
const ContentRefSpace = refType('ContentRefSpace', 'space', { space: 'Space id' }, 'A space');
const ContentRefUser = refType('ContentRefUser', 'user', { user: 'User id' }, 'A user');
const ContentRefCollection = refType('ContentRefCollection', 'collection', { collection: 'Collection id' }, 'A collection');
const ContentRefReusableContent = refType(
  'ContentRefReusableContent',
  'reusable-content',
  { reusableContent: 'Reusable content id', space: 'The space it is defined in (none: the current one)' },
  'A reusable content',
);
const ContentRefTag = refType(
  'ContentRefTag',
  'tag',
  { tag: 'The tag’s slug', space: 'The space it is defined in (none: the current one)' },
  'A tag of a revision',
);
const ContentRefOpenAPI = refType('ContentRefOpenAPI', 'openapi', { spec: 'The OpenAPI specification’s slug' }, 'An OpenAPI specification');

const BY_KIND = {
  url: ContentRefUrl,
  page: ContentRefPage,
  file: ContentRefFile,
  anchor: ContentRefAnchor,
  space: ContentRefSpace,
  user: ContentRefUser,
  collection: ContentRefCollection,
  'reusable-content': ContentRefReusableContent,
  tag: ContentRefTag,
  openapi: ContentRefOpenAPI,
};

export const ContentRefUnion = builder.unionType('ContentRef', {
  description:
    'A reference to content: a URL, a page, a file, an anchor, a space, a user, a collection, a reusable content, a tag or an OpenAPI spec',
  types: Object.values(BY_KIND),
  resolveType: (r) => BY_KIND[r.kind as keyof typeof BY_KIND] ?? ContentRefUrl,
});

/** A ContentRef's REST selection: each kind's keys in the official order. */
export const CONTENT_REF_SELECTION = `{
  ... on ContentRefURL { kind url } ... on ContentRefPage { kind page space } ... on ContentRefFile { kind file space }
  ... on ContentRefAnchor { kind anchor page space } ... on ContentRefSpace { kind space } ... on ContentRefUser { kind user }
  ... on ContentRefCollection { kind collection } ... on ContentRefReusableContent { kind reusableContent space }
  ... on ContentRefTag { kind tag space } ... on ContentRefOpenAPI { kind spec }
}`;

const MetaLinks = builder.objectRef<{ canonical?: ContentRefJson; alternates: ContentRefJson[] }>('PageMetaLinks').implement({
  description: "A page's meta links (official RevisionPageMetaLinks): a canonical link and alternates (e.g. the page in other languages)",
  fields: (t) => ({
    canonical: t.field({ type: ContentRefUnion, nullable: true, resolve: (m) => m.canonical ?? null }),
    alternates: t.field({ type: [ContentRefUnion], resolve: (m) => m.alternates }),
  }),
});
export { MetaLinks as PageMetaLinksType };

export const PageTagType = builder.objectRef<{ tag: ContentRefJson; primary?: boolean }>('PageTag').implement({
  description: 'A tag of a page (official RevisionPageTag)',
  fields: (t) => ({
    tag: t.field({ type: ContentRefUnion, resolve: (p) => p.tag }),
    primary: t.boolean({ nullable: true, description: 'The tag shown first in the table of contents', resolve: (p) => p.primary ?? null }),
  }),
});
