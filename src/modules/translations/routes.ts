import { deletedStatus, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';

const TRANSLATION_FIELDS = /* GraphQL */ `
fragment TranslationFields on Translation {
  object id status failureReason source { space language } language instructions result { space revision language } createdAt updatedAt
  stats { runs totalWords totalPages totalDuration latestRunDuration latestPages latestWords }
  permissions { view edit } urls { location }
}`;

const ids = (req: RestRequest) => ({ organizationId: req.params.organizationId, translationId: req.params.translationId });

export const translationRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/translations',
    operationId: 'listTranslations',
    document: `query Translations($organizationId: ID!, $page: String, $limit: Int) {
      organization(id: $organizationId) { translations(page: $page, limit: $limit) { items { ...TranslationFields } ${LIST_FIELDS} } }
    } ${TRANSLATION_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...listVariables(req) }),
    result: (data) => data.organization.translations,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/translations',
    operationId: 'createTranslation',
    document: `mutation CreateTranslation($organizationId: ID!, $input: CreateTranslationInput!) {
      createTranslation(organizationId: $organizationId, input: $input) { ...TranslationFields }
    } ${TRANSLATION_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.createTranslation,
    status: 201,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/translations/:translationId',
    operationId: 'getTranslation',
    document: `query Translation($organizationId: ID!, $translationId: ID!) {
      organization(id: $organizationId) { translation(id: $translationId) { ...TranslationFields } }
    } ${TRANSLATION_FIELDS}`,
    variables: ids,
    result: (data) => data.organization.translation,
  },
  {
    method: 'PUT',
    path: '/orgs/:organizationId/translations/:translationId',
    operationId: 'updateTranslation',
    document: `mutation UpdateTranslation($organizationId: ID!, $translationId: ID!, $input: UpdateTranslationInput!) {
      updateTranslation(organizationId: $organizationId, translationId: $translationId, input: $input) { ...TranslationFields }
    } ${TRANSLATION_FIELDS}`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => data.updateTranslation,
  },
  {
    method: 'DELETE',
    path: '/orgs/:organizationId/translations/:translationId',
    operationId: 'deleteTranslation',
    document: `mutation DeleteTranslation($organizationId: ID!, $translationId: ID!) { deleteTranslation(organizationId: $organizationId, translationId: $translationId) }`,
    variables: ids,
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteTranslation),
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/translations/:translationId/run',
    operationId: 'runTranslation',
    document: `mutation RunTranslation($organizationId: ID!, $translationId: ID!) { runTranslation(organizationId: $organizationId, translationId: $translationId) }`,
    variables: ids,
    result: () => undefined,
    status: 204,
  },
];
