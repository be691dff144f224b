import { builder, type Model } from '../../graphql/builder.js';
import { restEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { openAPISpecPermissions, orgRole } from '../../auth/permissions.js';
import type { OpenAPISpec } from '../../generated/prisma/client.js';
import { OrganizationType } from '../orgs/index.js';
import type { Filesystem, FilesystemFile, ProcessError } from './process.js';
import { specPages, type ComputedPage } from './pages.js';
import {
  createSpec,
  deleteSpec,
  getSpec,
  getVersion,
  latestContent,
  latestVersion,
  listSpecs,
  listVersions,
  putSpec,
  updateSpec,
  versionContent,
  versionUrl,
  VISIBILITIES,
  type VersionContent,
  type VersionView,
} from './service.js';

export const OpenAPISpecProcessingStateEnum = restEnum(
  'OpenAPISpecProcessingState',
  ['pending', 'progress', 'complete'] as const,
  'Processing of the newest version',
);
export const OpenAPISpecVersionStateEnum = restEnum(
  'OpenAPISpecVersionState',
  ['pending', 'progress', 'complete', 'failed'] as const,
  'Processing of one version: failed when it ended with an error (the version then has no content)',
);
export const OpenAPISpecVisibilityEnum = restEnum(
  'OpenAPISpecVisibility',
  VISIBILITIES,
  'private: not publicly available; public: available to anyone with its published URL',
);
export const OpenAPISpecProcessingErrorCodeEnum = restEnum('OpenAPISpecProcessingErrorCode', [
  'FETCH_TIMEOUT',
  'FETCH_ERROR',
  'PARSE_ERROR',
] as const);

const OpenAPIOperationRef = builder.objectRef<{ method: string; path: string }>('OpenAPIOperationRef').implement({
  description: 'An operation of a spec, by its method and path',
  fields: (t) => ({ method: t.exposeString('method'), path: t.exposeString('path') }),
});

const OpenAPIErrorObject = builder.objectRef<ProcessError>('OpenAPIErrorObject').implement({
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.string({ nullable: true, resolve: (e) => e.code ?? null }),
  }),
});

const OpenAPISpecPermissions = builder.objectRef<{ view: boolean; edit: boolean }>('OpenAPISpecPermissions').implement({
  fields: (t) => ({
    view: t.exposeBoolean('view', { description: 'Can the caller view the specification' }),
    edit: t.exposeBoolean('edit', { description: 'Can the caller update, delete or change the visibility of the specification' }),
  }),
});

const OpenAPISpecUrls = builder.objectRef<{ location: string; app: string; published: string | null }>('OpenAPISpecUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location'),
    app: t.exposeString('app'),
    published: t.exposeString('published', {
      nullable: true,
      description: 'Where the latest processed version is served to anyone; only while the spec is public',
    }),
  }),
});

const OpenAPISpecVersionUrls = builder.objectRef<{ location: string }>('OpenAPISpecVersionUrls').implement({
  fields: (t) => ({ location: t.exposeString('location') }),
});

const OpenAPISpecContentUrls = builder.objectRef<VersionContent['urls']>('OpenAPISpecContentUrls').implement({
  fields: (t) => ({
    source: t.exposeString('source', { description: 'Where the version was read: its source URL, or where Lectern serves the text given' }),
    public: t.exposeString('public', {
      nullable: true,
      extensions: { restKeepNull: true },
      description: 'The same URL while the spec is public (readable without a token); null while it is private',
    }),
  }),
});

const OpenAPISpecificationEnum = builder.enumType('OpenAPISpecification', {
  description: 'What a spec is written in: OpenAPI 3.x or Swagger 2.0',
  values: ['openapi', 'swagger'] as const,
});

const OpenAPISpecFileFormatEnum = builder.enumType('OpenAPISpecFileFormat', { values: ['json', 'yaml'] as const });

const OpenAPISpecFileType = builder.objectRef<FilesystemFile & { uri: string }>('OpenAPISpecFile').implement({
  description: 'One file of a processed version: the entry document or an external file its $refs reach',
  fields: (t) => ({
    uri: t.exposeString('uri', { description: 'Where it was read; $refs in it resolve against it (REST: its key in `files`)' }),
    format: t.field({ type: OpenAPISpecFileFormatEnum, resolve: (f) => f.format }),
    references: t.exposeStringList('references', { description: 'The uris of the files its $refs name' }),
    specification: t.field({
      type: 'JSON',
      description: 'Free-form: the parsed document as written (an OpenAPI or Swagger document, or any part a $ref names)',
      resolve: (f) => f.specification,
    }),
  }),
});

const OpenAPISpecFilesystemType = builder.objectRef<Filesystem>('OpenAPISpecFilesystem').implement({
  description: 'A processed version’s files: the entry document and every external file its $refs reach, parsed',
  fields: (t) => ({
    entrypoint: t.exposeString('entrypoint', { description: 'The uri of the entry document' }),
    specification: t.field({ type: OpenAPISpecificationEnum, resolve: (f) => f.specification }),
    version: t.exposeString('version', { description: 'Its OpenAPI or Swagger version: 3.1.0, 2.0…' }),
    title: t.exposeString('title', { nullable: true, extensions: { restKeepNull: true }, description: 'info.title' }),
    apiVersion: t.exposeString('apiVersion', { nullable: true, extensions: { restKeepNull: true }, description: 'info.version' }),
    files: t.field({
      type: [OpenAPISpecFileType],
      description: 'In the stored order (REST: a map keyed by uri)',
      resolve: (f) => Object.entries(f.files).map(([uri, file]) => ({ uri, ...file })),
    }),
  }),
});

/** The REST selection of OpenAPISpecContent: the stored filesystem's keys in the order PostgreSQL's jsonb gives them back. */
export const OPENAPI_CONTENT_SELECTION =
  '{ filesystem { files { uri format references specification } title version apiVersion entrypoint specification } url urls { source public } }';

/** The REST filesystem: `files` a map from uri to the file, as stored. */
export function restContent(content: { filesystem: { files: ({ uri: string } & Record<string, unknown>)[] } & Record<string, unknown> }) {
  const { files, ...rest } = content.filesystem;
  return {
    ...content,
    filesystem: { files: Object.fromEntries(files.map(({ uri, ...file }) => [uri, file])), ...rest },
  };
}

const OpenAPISpecContent = builder.objectRef<VersionContent>('OpenAPISpecContent').implement({
  description: 'A processed version: its files (the entry document and the external files its $refs reach, parsed) and where it was read',
  fields: (t) => ({
    filesystem: t.field({ type: OpenAPISpecFilesystemType, resolve: (c) => c.filesystem as Filesystem }),
    url: t.exposeString('url'),
    urls: t.field({ type: OpenAPISpecContentUrls, resolve: (c) => c.urls }),
  }),
});

export const OpenAPISpecVersionType = builder.objectRef<VersionView>('OpenAPISpecVersion').implement({
  description: 'One version of an OpenAPI specification: recorded by each create or update of its source',
  fields: (t) => ({
    object: t.string({ resolve: () => 'openapi-spec-version' }),
    id: t.exposeID('id'),
    number: t.exposeInt('number', { description: '1, 2, 3… in the order versions were recorded' }),
    createdAt: t.field({ type: 'DateTime', resolve: (v) => v.createdAt }),
    url: t.string({
      description: 'Where the version was read: its source URL, or where Lectern serves the text given',
      resolve: (v, _a, ctx) => versionUrl(ctx, v),
    }),
    urls: t.field({
      type: OpenAPISpecVersionUrls,
      resolve: (v, _a, ctx) => ctx.urls.openAPISpecVersion(v.spec.organizationId, v.spec.slug, v.id),
    }),
    state: t.field({ type: OpenAPISpecVersionStateEnum, resolve: (v) => v.state as 'pending' }),
    processedAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.processedAt }),
    errorCode: t.field({ type: OpenAPISpecProcessingErrorCodeEnum, nullable: true, resolve: (v) => v.errorCode as 'FETCH_ERROR' | null }),
    errors: t.field({ type: [OpenAPIErrorObject], resolve: (v) => v.errors as unknown as ProcessError[] }),
  }),
});

const OpenAPISpecVersionList = listOf('OpenAPISpecVersion', OpenAPISpecVersionType);

const OpenAPIPage = builder.objectRef<ComputedPage>('OpenAPIComputedPage').implement({
  description: 'A page computed from a spec (computed.type builtin:openapi): one per tag, listing its operations',
  fields: (t) => ({
    title: t.exposeString('title'),
    slug: t.exposeString('slug'),
    description: t.exposeString('description', { nullable: true }),
    markdown: t.exposeString('markdown'),
    props: t.field({
      type: 'JSON',
      description:
        'Free-form: the props of a computed source are its builtin’s own. Here { doc: operations, page: <tag> } or { doc: models }',
      resolve: (p) => p.props,
    }),
    operations: t.field({
      type: [OpenAPIOperationRef],
      description: 'Each operation on the page',
      resolve: (p) => p.operations as { method: string; path: string }[],
    }),
  }),
});

export const OpenAPISpecType = builder.objectRef<Model<'OpenAPISpec'>>('OpenAPISpec').implement({
  description: 'An OpenAPI 3.0/3.1 or Swagger 2.0 description of an API, kept by an organization under a slug',
  fields: (t) => ({
    object: t.string({ resolve: () => 'openapi-spec' }),
    id: t.exposeID('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    slug: t.exposeString('slug'),
    sourceURL: t.exposeString('sourceURL', {
      nullable: true,
      description: 'Where the newest version is fetched from; absent when it was given as text',
    }),
    processingState: t.field({ type: OpenAPISpecProcessingStateEnum, resolve: (s) => s.processingState as 'pending' }),
    visibility: t.field({ type: OpenAPISpecVisibilityEnum, resolve: (s) => s.visibility as 'private' }),
    lastVersion: t.string({ nullable: true, description: 'Id of the newest version', resolve: (s) => s.lastVersionId }),
    lastProcessedAt: t.field({ type: 'DateTime', nullable: true, resolve: (s) => s.lastProcessedAt }),
    lastProcessErrorCode: t.field({
      type: OpenAPISpecProcessingErrorCodeEnum,
      nullable: true,
      resolve: (s) => s.lastProcessErrorCode as 'FETCH_ERROR' | null,
    }),
    lastProcessedErrors: t.field({ type: [OpenAPIErrorObject], resolve: (s) => s.lastProcessedErrors as unknown as ProcessError[] }),
    lastProcessedErrorCount: t.exposeInt('lastProcessedErrorCount', {
      description: 'How many errors the newest processing found (lastProcessedErrors shows at most 20 of them)',
    }),
    permissions: t.field({
      type: OpenAPISpecPermissions,
      resolve: async (s, _a, ctx) => openAPISpecPermissions(await orgRole(ctx, s.organizationId)),
    }),
    urls: t.field({
      type: OpenAPISpecUrls,
      resolve: (s, _a, ctx) => ({
        ...ctx.urls.openAPISpec(s.organizationId, s.slug),
        published: s.visibility === 'public' ? ctx.urls.openAPIPublished(s.organizationId, s.slug) : null,
      }),
    }),
    versions: t.field({
      type: OpenAPISpecVersionList,
      description: 'Every version, newest first',
      args: pageArgs(t),
      resolve: (s, args, ctx) => listVersions(ctx, s, args),
    }),
    latestVersion: t.field({
      type: OpenAPISpecVersionType,
      description: 'The newest version (named by lastVersion)',
      resolve: (s, _a, ctx) => latestVersion(ctx, s),
    }),
    version: t.field({
      type: OpenAPISpecVersionType,
      args: { id: t.arg.id({ required: true }) },
      resolve: (s, { id }, ctx) => getVersion(ctx, s, String(id)),
    }),
    latestContent: t.field({
      type: OpenAPISpecContent,
      description: 'Content of the newest successfully processed version',
      resolve: (s, _a, ctx) => latestContent(ctx, s),
    }),
    versionContent: t.field({
      type: OpenAPISpecContent,
      args: { id: t.arg.id({ required: true }) },
      resolve: (s, { id }, ctx) => versionContent(ctx, s, String(id)),
    }),
    pages: t.field({
      type: [OpenAPIPage],
      description:
        'Pages computed from the newest processed version: one per tag with its operations (what a builtin:openapi computed page renders)',
      resolve: async (s, _a, ctx) => specPages((await latestContent(ctx, s)).filesystem),
    }),
  }),
});

const OpenAPISpecList = listOf('OpenAPISpec', OpenAPISpecType);

builder.objectFields(OrganizationType, (t) => ({
  openAPISpecs: t.field({
    type: OpenAPISpecList,
    description: "The organization's OpenAPI specs, oldest first",
    args: pageArgs(t),
    resolve: (org, args, ctx) => listSpecs(ctx, org.id, args),
  }),
  openAPISpec: t.field({
    type: OpenAPISpecType,
    args: { slug: t.arg.string({ required: true }) },
    resolve: (org, { slug }, ctx) => getSpec(ctx, org.id, slug),
  }),
}));

const OpenAPISpecSourceInput = builder.inputType('OpenAPISpecSourceInput', {
  description: 'Exactly one of: url (where Lectern fetches the spec) or text (the spec itself, JSON or YAML)',
  fields: (t) => ({
    url: t.string({ description: 'http(s) URL, at most 2048 characters' }),
    text: t.string({ description: 'The spec in JSON or YAML' }),
  }),
});

const CreateOpenAPISpecInput = builder.inputType('CreateOpenAPISpecInput', {
  fields: (t) => ({
    slug: t.string({ description: 'Letters and digits in groups joined by hyphens, at most 100; kept in lower case' }),
    source: t.field({ type: OpenAPISpecSourceInput }),
  }),
});

const PutOpenAPISpecInput = builder.inputType('PutOpenAPISpecInput', {
  fields: (t) => ({ source: t.field({ type: OpenAPISpecSourceInput }) }),
});

const UpdateOpenAPISpecInput = builder.inputType('UpdateOpenAPISpecInput', {
  fields: (t) => ({ visibility: t.field({ type: OpenAPISpecVisibilityEnum }) }),
});

const PutOpenAPISpecResult = builder.objectRef<{ spec: OpenAPISpec; created: boolean }>('PutOpenAPISpecResult').implement({
  fields: (t) => ({
    spec: t.field({ type: OpenAPISpecType, resolve: (r) => r.spec }),
    created: t.exposeBoolean('created', { description: 'true when the spec did not exist and was created' }),
  }),
});

const specArgs = (t: { arg: { id: (o: { required: true }) => any; string: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  slug: t.arg.string({ required: true }),
});

builder.mutationFields((t) => ({
  createOpenAPISpec: t.field({
    type: OpenAPISpecType,
    description: 'Create a spec; its first version is processed in the background',
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateOpenAPISpecInput, required: true }) },
    resolve: (_r, { organizationId, input }, ctx) => createSpec(ctx, String(organizationId), input),
  }),
  putOpenAPISpec: t.field({
    type: PutOpenAPISpecResult,
    description: 'Record a new version of a spec, creating the spec when there is none with this slug',
    args: { ...specArgs(t), input: t.arg({ type: PutOpenAPISpecInput, required: true }) },
    resolve: (_r, args, ctx) => putSpec(ctx, String(args.organizationId), String(args.slug), args.input),
  }),
  updateOpenAPISpec: t.field({
    type: OpenAPISpecType,
    description: 'Change the visibility of a spec',
    args: { ...specArgs(t), input: t.arg({ type: UpdateOpenAPISpecInput, required: true }) },
    resolve: (_r, args, ctx) => updateSpec(ctx, String(args.organizationId), String(args.slug), args.input),
  }),
  deleteOpenAPISpec: t.boolean({
    description: 'Delete a spec and its versions; NOT_FOUND when there is none',
    args: specArgs(t),
    resolve: (_r, args, ctx) => deleteSpec(ctx, String(args.organizationId), String(args.slug)),
  }),
}));
