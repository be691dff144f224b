import { builder } from '../../graphql/builder.js';
import type { ComputedSource } from './computed-pages.js';

/**
 * A computed content source (official ComputedContentSource: `{ type, props, dependencies }`) as
 * GraphQL types: the object type a computed page's source is read as (Lectern stores builtin:openapi
 * revision sources only, so its props are typed), and the input type a source is written or
 * computed with (its props free-form: a revision source's and a document source's differ). Lectern computes `builtin:openapi` sources, whose one dependency is
 * an OpenAPI spec of the organization; the service (computed-pages.ts) checks every value, so the
 * input's fields are optional and a 400 names the field that is missing or wrong.
 */

const TYPE_ABOUT =
  'builtin:openapi (the one Lectern computes). The official set is open (builtin:translation, integration:<app>:<name>), so a string';
const PROPS_ABOUT =
  'Free-form: each source type defines its own props (official PlainObject for integration sources). builtin:openapi revision: { models, downloadLink?, grouping? }; document: { doc, page? }';

const ComputedOpenAPIRef = builder.objectRef<ComputedSource['dependencies']['spec']['ref']>('ComputedContentOpenAPIRef').implement({
  description: 'The OpenAPI spec a source depends on (official ContentRefOpenAPI)',
  fields: (t) => ({
    kind: t.string({ description: 'Always openapi', resolve: (r) => r.kind }),
    spec: t.exposeString('spec', { description: 'The slug of one of the organization’s OpenAPI specs' }),
  }),
});

const ComputedSpecDependency = builder.objectRef<ComputedSource['dependencies']['spec']>('ComputedContentSpecDependency').implement({
  description: 'A dependency before its resolution (official ComputedContentDependency): what it refers to',
  fields: (t) => ({ ref: t.field({ type: ComputedOpenAPIRef, resolve: (d) => d.ref }) }),
});

const ComputedDependencies = builder.objectRef<ComputedSource['dependencies']>('ComputedContentDependencies').implement({
  description: 'What the computation depends on; it is computed again when they change',
  fields: (t) => ({ spec: t.field({ type: ComputedSpecDependency, resolve: (d) => d.spec }) }),
});

const GroupingEnum = builder.enumType('ComputedOpenAPIGrouping', {
  description: 'How the generated pages are grouped: by-tag, one page per tag (the one Lectern makes), or by-operation',
  values: { by_tag: { value: 'by-tag' }, by_operation: { value: 'by-operation' } } as const,
});

const ComputedOpenAPIProps = builder.objectRef<ComputedSource['props']>('ComputedOpenAPIRevisionProps').implement({
  description: 'The props of a builtin:openapi revision source (official ComputedContentSourceRevisionOpenAPI)',
  fields: (t) => ({
    models: t.exposeBoolean('models', { description: 'Whether a Models page is made of the spec’s schemas' }),
    downloadLink: t.exposeBoolean('downloadLink', { nullable: true, description: 'Whether to show a link to download the spec' }),
    grouping: t.field({ type: GroupingEnum, nullable: true, resolve: (p) => p.grouping ?? null }),
  }),
});

/** The source of a computed page (official ComputedContentSourceRevision, as Lectern stores it: builtin:openapi only). */
export const ComputedContentSourceType = builder.objectRef<ComputedSource>('ComputedContentSource').implement({
  description: 'What a computed page computes its pages from (official ComputedContentSource)',
  fields: (t) => ({
    type: t.string({ description: TYPE_ABOUT, resolve: (s) => s.type }),
    props: t.field({ type: ComputedOpenAPIProps, resolve: (s) => s.props }),
    dependencies: t.field({ type: ComputedDependencies, resolve: (s) => s.dependencies }),
  }),
});

const ComputedOpenAPIRefInput = builder.inputType('ComputedContentOpenAPIRefInput', {
  description: 'The OpenAPI spec a source depends on: { kind: openapi, spec }',
  fields: (t) => ({
    kind: t.string({ required: false, description: 'openapi (required)' }),
    spec: t.string({ required: false, description: 'The slug of one of the organization’s OpenAPI specs (required)' }),
  }),
});

const ComputedSpecDependencyInput = builder.inputType('ComputedContentSpecDependencyInput', {
  fields: (t) => ({ ref: t.field({ type: ComputedOpenAPIRefInput, required: false, description: 'Required' }) }),
});

const ComputedDependenciesInput = builder.inputType('ComputedContentDependenciesInput', {
  fields: (t) => ({ spec: t.field({ type: ComputedSpecDependencyInput, required: false, description: 'Required for builtin:openapi' }) }),
});

export const ComputedContentSourceInput = builder.inputType('ComputedContentSourceInput', {
  description: 'A computed content source (official ComputedContentSource): type, props and dependencies, all required',
  fields: (t) => ({
    type: t.string({ required: false, description: TYPE_ABOUT }),
    props: t.field({ type: 'JSON', required: false, description: PROPS_ABOUT }),
    dependencies: t.field({ type: ComputedDependenciesInput, required: false }),
  }),
});
