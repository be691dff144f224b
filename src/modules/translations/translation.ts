import { FREE_DOC } from '../../graphql/free-form.js';
import { builder, type Model } from '../../graphql/builder.js';
import { restEnum, TranslationLanguageEnum } from '../../graphql/enums.js';
import { listOf, pageArgs } from '../../graphql/lists.js';
import { documentFromMarkdown } from '../../document/index.js';
import { OrganizationType } from '../orgs/index.js';
import {
  createTranslation,
  deleteTranslation,
  getTranslation,
  listTranslations,
  runTranslation,
  translationPermissions,
  updateTranslation,
} from './service.js';
import './run.js';

// GitBook's statuses (0.146.0 and 0.202.0 alike) have no `failed`: a run that gave up is over, so it
// is `completed`, and `failureReason` says why it failed (it is null after a run that succeeded).
const TranslationStatusEnum = restEnum(
  'TranslationStatus',
  ['pending', 'running', 'completed'] as const,
  'pending: never run, or a run is queued; running; completed: the latest run is over (it failed when failureReason is set)',
);

type Lang = 'en';

const TranslationSourceType = builder.objectRef<{ space: string; language: string }>('TranslationSource').implement({
  fields: (t) => ({
    space: t.exposeString('space', { description: 'Id of the source space' }),
    language: t.field({ type: TranslationLanguageEnum, resolve: (s) => s.language as Lang }),
  }),
});

const TranslationResultType = builder.objectRef<{ space: string; revision: string; language: string }>('TranslationResult').implement({
  fields: (t) => ({
    space: t.exposeString('space', { description: 'Id of the space holding the translation' }),
    revision: t.exposeString('revision', { description: 'Id of the revision the latest run produced' }),
    language: t.field({
      type: TranslationLanguageEnum,
      description: 'The language it is written in (the translation language)',
      resolve: (r) => r.language as Lang,
    }),
  }),
});

const TranslationStatsType = builder
  .objectRef<{
    runs: number;
    totalWords: number;
    totalPages: number;
    totalDuration: number;
    latestRunDuration: number;
    latestPages: number;
    latestWords: number;
  }>('TranslationStats')
  .implement({
    fields: (t) => ({
      runs: t.exposeInt('runs', { description: 'Completed runs' }),
      totalWords: t.exposeInt('totalWords', { description: 'Words translated, all runs together' }),
      totalPages: t.exposeInt('totalPages', { description: 'Distinct source pages ever translated' }),
      totalDuration: t.exposeInt('totalDuration', { description: 'Seconds, all runs together' }),
      latestRunDuration: t.exposeInt('latestRunDuration', { description: 'Seconds' }),
      latestPages: t.exposeInt('latestPages', { description: 'Pages translated by the latest run' }),
      latestWords: t.exposeInt('latestWords', { description: 'Words translated by the latest run' }),
    }),
  });

const TranslationPermissions = builder.objectRef<{ view: boolean; edit: boolean }>('TranslationPermissions').implement({
  fields: (t) => ({ view: t.exposeBoolean('view'), edit: t.exposeBoolean('edit', { description: 'Can change, run and delete it' }) }),
});

const EMPTY_DOCUMENT = documentFromMarkdown('');
const seconds = (ms: number) => Math.round(ms / 1000);

export const TranslationType = builder.objectRef<Model<'Translation'>>('Translation').implement({
  description: 'A translation of a space into another language',
  fields: (t) => ({
    object: t.string({ resolve: () => 'translation' }),
    id: t.exposeID('id'),
    status: t.field({ type: TranslationStatusEnum, resolve: (tr) => (tr.status === 'failed' ? 'completed' : (tr.status as 'pending')) }),
    failureReason: t.exposeString('failureReason', {
      nullable: true,
      description: 'Why the latest run failed (status completed), or is being retried (status pending)',
    }),
    source: t.field({ type: TranslationSourceType, resolve: (tr) => ({ space: tr.sourceSpaceId, language: tr.sourceLanguage }) }),
    language: t.field({ type: TranslationLanguageEnum, resolve: (tr) => tr.language as Lang }),
    instructions: t.field({
      type: 'JSON',
      description: `${FREE_DOC}Guidance for the translator (empty when none were given)`,
      resolve: (tr) => tr.instructions ?? EMPTY_DOCUMENT,
    }),
    result: t.field({
      type: TranslationResultType,
      nullable: true,
      description: 'Where the latest run wrote (absent before the first run)',
      // A translation's language is set at creation: every run wrote the result space in it.
      resolve: (tr) =>
        tr.resultSpaceId && tr.resultRevisionId ? { space: tr.resultSpaceId, revision: tr.resultRevisionId, language: tr.language } : null,
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    stats: t.field({
      type: TranslationStatsType,
      resolve: (tr) => ({
        runs: tr.runs,
        totalWords: tr.totalWords,
        totalPages: tr.totalPages,
        totalDuration: seconds(tr.totalDurationMs),
        latestRunDuration: seconds(tr.latestRunDurationMs),
        latestPages: tr.latestPages,
        latestWords: tr.latestWords,
      }),
    }),
    permissions: t.field({ type: TranslationPermissions, resolve: (tr, _a, ctx) => translationPermissions(ctx, tr.organizationId) }),
    urls: t.field({
      type: builder
        .objectRef<{ location: string }>('TranslationUrls')
        .implement({ fields: (u) => ({ location: u.exposeString('location') }) }),
      resolve: (tr, _a, ctx) => ctx.urls.translation(tr.organizationId, tr.id),
    }),
  }),
});

const TranslationList = listOf('Translation', TranslationType);

builder.objectFields(OrganizationType, (t) => ({
  translations: t.field({ type: TranslationList, args: pageArgs(t), resolve: (org, args, ctx) => listTranslations(ctx, org.id, args) }),
  translation: t.field({
    type: TranslationType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (org, { id }, ctx) => getTranslation(ctx, org.id, String(id)),
  }),
}));

const TranslationSourceInput = builder.inputType('TranslationSourceInput', {
  fields: (t) => ({
    space: t.string({ required: true, description: 'Id of the space to translate' }),
    language: t.field({ type: TranslationLanguageEnum, required: true, description: 'The language it is written in' }),
  }),
});

const CreateTranslationInput = builder.inputType('CreateTranslationInput', {
  fields: (t) => ({
    source: t.field({ type: TranslationSourceInput, required: true }),
    language: t.field({ type: TranslationLanguageEnum, required: true, description: 'The language to translate into' }),
    instructions: t.field({ type: 'JSON', description: `${FREE_DOC}Guidance for the translator` }),
  }),
});

const UpdateTranslationInput = builder.inputType('UpdateTranslationInput', {
  fields: (t) => ({ instructions: t.field({ type: 'JSON', required: true, description: `${FREE_DOC}Guidance for the translator` }) }),
});

const ids = (t: { arg: { id: (o: { required: true }) => any } }) => ({
  organizationId: t.arg.id({ required: true }),
  translationId: t.arg.id({ required: true }),
});

builder.mutationFields((t) => ({
  createTranslation: t.field({
    type: TranslationType,
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateTranslationInput, required: true }) },
    resolve: (_r, { organizationId, input }, ctx) => createTranslation(ctx, String(organizationId), input as never),
  }),
  updateTranslation: t.field({
    type: TranslationType,
    args: { ...ids(t), input: t.arg({ type: UpdateTranslationInput, required: true }) },
    resolve: (_r, args, ctx) => updateTranslation(ctx, String(args.organizationId), String(args.translationId), args.input),
  }),
  deleteTranslation: t.boolean({
    description: 'Delete a translation (its space stays); NOT_FOUND when there is none',
    args: ids(t),
    resolve: (_r, args, ctx) => deleteTranslation(ctx, String(args.organizationId), String(args.translationId)),
  }),
  runTranslation: t.boolean({
    description: 'Queue a run of the translation (it runs in the background)',
    args: ids(t),
    resolve: (_r, args, ctx) => runTranslation(ctx, String(args.organizationId), String(args.translationId)),
  }),
}));
