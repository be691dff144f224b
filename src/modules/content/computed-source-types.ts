import { builder } from '../../graphql/builder.js';
import type { ComputedSource } from './computed-pages.js';

/**
 * A computed content source (official ComputedContentSource: `{ type, props, dependencies }`) as
 * GraphQL types: the object type a computed page's source is read as, and the input type a source
 * is written or computed with. Lectern computes `builtin:openapi` sources, whose one dependency is
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

/** The source of a computed page (official ComputedContentSourceRevision, as Lectern stores it). */
export const ComputedContentSourceType = builder.objectRef<ComputedSource>('ComputedContentSource').implement({
  description: 'What a computed page computes its pages from (official ComputedContentSource)',
  fields: (t) => ({
    type: t.string({ description: TYPE_ABOUT, resolve: (s) => s.type }),
    props: t.field({ type: 'JSON', description: PROPS_ABOUT, resolve: (s) => s.props }),
    dependencies: t.field({ type: ComputedDependencies, resolve: (s) => s.dependencies }),
  }),
});

/** The REST selection of a ComputedContentSource: the stored JSON, key for key. */
export const COMPUTED_SOURCE_SELECTION = '{ type props dependencies { spec { ref { kind spec } } } }';

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
