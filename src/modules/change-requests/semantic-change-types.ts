import { builder } from '../../graphql/builder.js';
import { ContentRefUnion, type ContentRefJson } from '../content/index.js';

/**
 * A semantic change (official RevisionSemanticChange), typed: one object type per change type,
 * as a union. Built from the JSON the content module's diff writes (content/semantic-changes.ts);
 * SEMANTIC_CHANGE_SELECTION selects each variant's keys in the order that JSON has them, and
 * `variablesMap` turns the typed variable list back into the official map.
 */
type Json = Record<string, any>;

const ChangedPage = builder.objectRef<Json>('ChangedRevisionPage').implement({
  fields: (t) => ({
    id: t.string({ resolve: (p) => p.id }),
    type: t.string({ description: 'document, group, link or computed', resolve: (p) => p.type }),
    title: t.string({ resolve: (p) => p.title }),
    path: t.string({ resolve: (p) => p.path }),
  }),
});
const ChangedFile = builder.objectRef<Json>('ChangedRevisionFile').implement({
  fields: (t) => ({
    id: t.string({ resolve: (f) => f.id }),
    name: t.string({ resolve: (f) => f.name }),
    contentType: t.string({ resolve: (f) => f.contentType }),
    downloadURL: t.string({ resolve: (f) => f.downloadURL }),
  }),
});
const ChangedReusableContent = builder.objectRef<Json>('ChangedRevisionReusableContent').implement({
  fields: (t) => ({
    id: t.string({ resolve: (r) => r.id }),
    title: t.string({ resolve: (r) => r.title }),
    document: t.string({ description: 'The document id of its body', resolve: (r) => r.document }),
  }),
});

const StringChange = builder.objectRef<Json>('StringChange').implement({
  description: 'An attribute before and after (absent when it was or became unset)',
  fields: (t) => ({
    before: t.string({ nullable: true, resolve: (c) => c.before ?? null }),
    after: t.string({ nullable: true, resolve: (c) => c.after ?? null }),
  }),
});
const IntChange = builder.objectRef<Json>('IntChange').implement({
  fields: (t) => ({
    before: t.int({ nullable: true, resolve: (c) => c.before ?? null }),
    after: t.int({ nullable: true, resolve: (c) => c.after ?? null }),
  }),
});
const ContentRefChange = builder.objectRef<Json>('ContentRefChange').implement({
  fields: (t) => ({
    before: t.field({ type: ContentRefUnion, nullable: true, resolve: (c) => (c.before as ContentRefJson) ?? null }),
    after: t.field({ type: ContentRefUnion, nullable: true, resolve: (c) => (c.after as ContentRefJson) ?? null }),
  }),
});
const ChangedPageParent = builder.objectRef<Json>('ChangedRevisionPageParent').implement({
  description: 'The parent before and after a move (absent at the top level)',
  fields: (t) => ({
    before: t.field({ type: ChangedPage, nullable: true, resolve: (c) => c.before ?? null }),
    after: t.field({ type: ChangedPage, nullable: true, resolve: (c) => c.after ?? null }),
  }),
});

const attributesType = (name: string, fields: Record<string, typeof StringChange | typeof IntChange | typeof ContentRefChange>) =>
  builder.objectRef<Json>(name).implement({
    description: 'The attributes that changed (the others are absent)',
    fields: (t) =>
      Object.fromEntries(
        Object.entries(fields).map(([key, type]) => [key, t.field({ type, nullable: true, resolve: (a: Json) => a[key] ?? null })]),
      ),
  });
const DocumentPageAttributes = attributesType('RevisionPageDocumentChangeAttributes', {
  title: StringChange,
  description: StringChange,
  slug: StringChange,
  document: StringChange,
  emoji: StringChange,
});
const GroupPageAttributes = attributesType('RevisionPageGroupChangeAttributes', {
  title: StringChange,
  emoji: StringChange,
  slug: StringChange,
});
const LinkPageAttributes = attributesType('RevisionPageLinkChangeAttributes', {
  title: StringChange,
  emoji: StringChange,
  target: ContentRefChange,
});
const PageAttributes = builder.unionType('RevisionPageChangeAttributes', {
  types: [DocumentPageAttributes, GroupPageAttributes, LinkPageAttributes],
  // The edit's page type picks the attributes (set on the value by PageEdited below).
  resolveType: (a) =>
    a.__pageType === 'group' ? GroupPageAttributes : a.__pageType === 'link' ? LinkPageAttributes : DocumentPageAttributes,
});
const FileAttributes = attributesType('RevisionFileChangeAttributes', {
  name: StringChange,
  contentType: StringChange,
  size: IntChange,
  downloadURL: StringChange,
});
const ReusableContentAttributes = attributesType('RevisionReusableContentChangeAttributes', {
  title: StringChange,
  document: StringChange,
});

const VariableChange = builder.objectRef<{ name: string; change: Json }>('VariableChange').implement({
  fields: (t) => ({
    name: t.string({ resolve: (v) => v.name }),
    before: t.string({ nullable: true, resolve: (v) => v.change.before ?? null }),
    after: t.string({ nullable: true, resolve: (v) => v.change.after ?? null }),
  }),
});

const typeField = (t: any) => t.string({ resolve: (c: Json) => c.type });
const variant = (name: string, fields: (t: any) => Record<string, unknown>) =>
  builder.objectRef<Json>(name).implement({ fields: (t) => ({ type: typeField(t), ...(fields(t) as object) }) as never });

const PageChange = variant('RevisionSemanticChangePage', (t) => ({ page: t.field({ type: ChangedPage, resolve: (c: Json) => c.page }) }));
const PageEdited = variant('RevisionSemanticChangePageEdited', (t) => ({
  page: t.field({ type: ChangedPage, resolve: (c: Json) => c.page }),
  attributes: t.field({
    type: PageAttributes,
    resolve: (c: Json) => Object.assign(Object.create(null), c.attributes, { __pageType: c.page.type }),
  }),
}));
const PageMoved = variant('RevisionSemanticChangePageMoved', (t) => ({
  page: t.field({ type: ChangedPage, resolve: (c: Json) => c.page }),
  parent: t.field({ type: ChangedPageParent, resolve: (c: Json) => c.parent }),
}));
const FileChange = variant('RevisionSemanticChangeFile', (t) => ({ file: t.field({ type: ChangedFile, resolve: (c: Json) => c.file }) }));
const FileEdited = variant('RevisionSemanticChangeFileEdited', (t) => ({
  file: t.field({ type: ChangedFile, resolve: (c: Json) => c.file }),
  attributes: t.field({ type: FileAttributes, resolve: (c: Json) => c.attributes }),
}));
const ReusableContentChange = variant('RevisionSemanticChangeReusableContent', (t) => ({
  reusableContent: t.field({ type: ChangedReusableContent, resolve: (c: Json) => c.reusableContent }),
}));
const ReusableContentEdited = variant('RevisionSemanticChangeReusableContentEdited', (t) => ({
  reusableContent: t.field({ type: ChangedReusableContent, resolve: (c: Json) => c.reusableContent }),
  attributes: t.field({ type: ReusableContentAttributes, resolve: (c: Json) => c.attributes }),
}));
const VariablesEdited = variant('RevisionSemanticChangeVariablesEdited', (t) => ({
  variables: t.field({
    type: [VariableChange],
    description: 'Each variable that changed, by name (the official answer: a map from name to { before, after })',
    resolve: (c: Json) => Object.entries(c.variables as Json).map(([name, change]) => ({ name, change })),
  }),
}));

const BY_TYPE: Record<string, typeof PageChange> = {
  page_created: PageChange,
  page_deleted: PageChange,
  page_edited: PageEdited,
  page_moved: PageMoved,
  file_created: FileChange,
  file_deleted: FileChange,
  file_edited: FileEdited,
  reusable_content_created: ReusableContentChange,
  reusable_content_deleted: ReusableContentChange,
  reusable_content_edited: ReusableContentEdited,
  variables_edited: VariablesEdited,
};

export const SemanticChangeUnion = builder.unionType('RevisionSemanticChange', {
  description:
    'One change: `type` names it (page_created, page_edited, page_moved, page_deleted, file_…, reusable_content_…, variables_edited)',
  types: [PageChange, PageEdited, PageMoved, FileChange, FileEdited, ReusableContentChange, ReusableContentEdited, VariablesEdited],
  resolveType: (c) => BY_TYPE[c.type as string] ?? PageChange,
});

const CHANGE = '{ before after }';
// A link page's target is always a URL in Lectern (content/semantic-changes.ts writes { kind: url, url }).
const URL_REF = '{ ... on ContentRefURL { kind url } }';
const PAGE = '{ id type title path }';
/** The REST selection of a change list: each variant's keys in the order content/semantic-changes.ts writes them. */
export const SEMANTIC_CHANGE_SELECTION = `{
  ... on RevisionSemanticChangePage { type page ${PAGE} }
  ... on RevisionSemanticChangePageEdited { type page ${PAGE} attributes {
    ... on RevisionPageDocumentChangeAttributes { title ${CHANGE} description ${CHANGE} slug ${CHANGE} document ${CHANGE} emoji ${CHANGE} }
    ... on RevisionPageGroupChangeAttributes { title ${CHANGE} emoji ${CHANGE} slug ${CHANGE} }
    ... on RevisionPageLinkChangeAttributes { title ${CHANGE} emoji ${CHANGE} target { before ${URL_REF} after ${URL_REF} } }
  } }
  ... on RevisionSemanticChangePageMoved { type page ${PAGE} parent { before ${PAGE} after ${PAGE} } }
  ... on RevisionSemanticChangeFile { type file { id name contentType downloadURL } }
  ... on RevisionSemanticChangeFileEdited { type file { id name contentType downloadURL } attributes { name ${CHANGE} contentType ${CHANGE} size ${CHANGE} downloadURL ${CHANGE} } }
  ... on RevisionSemanticChangeReusableContent { type reusableContent { id title document } }
  ... on RevisionSemanticChangeReusableContentEdited { type reusableContent { id title document } attributes { title ${CHANGE} document ${CHANGE} } }
  ... on RevisionSemanticChangeVariablesEdited { type variables { name before after } }
}`;

/** A REST change as the official schema has it: `variables` is a map from name to { before, after }. */
export function officialChange(change: Json): Json {
  if (change.type !== 'variables_edited') return change;
  return { type: change.type, variables: Object.fromEntries((change.variables as Json[]).map(({ name, ...rest }) => [name, rest])) };
}
