import { deletedStatus, LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { TEAM_FIELDS } from '../teams/index.js';

const PROVIDER_FIELDS = /* GraphQL */ `
fragment SamlProviderFields on SamlProvider {
  object id label ssoURL entityID certificate defaultTeam { ...TeamFields } defaultRole createdAt status
  service { acsURL startURL entityID } urls { location }
}
${TEAM_FIELDS}`;

const ids = (req: RestRequest) => ({ organizationId: req.params.organizationId, providerId: req.params.samlProviderId });

export const ssoRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/orgs/:organizationId/saml',
    operationId: 'listSAMLProvidersInOrganizationById',
    document: `query SamlProviders($organizationId: ID!, $page: String, $limit: Int) {
      organization(id: $organizationId) { samlProviders(page: $page, limit: $limit) { items { ...SamlProviderFields } ${LIST_FIELDS} } }
    } ${PROVIDER_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, ...listVariables(req) }),
    result: (data) => data.organization.samlProviders,
  },
  {
    method: 'POST',
    path: '/orgs/:organizationId/saml',
    operationId: 'createOrganizationSAMLProvider',
    document: `mutation CreateSamlProvider($organizationId: ID!, $input: CreateSamlProviderInput!) {
      createSamlProvider(organizationId: $organizationId, input: $input) { ...SamlProviderFields }
    } ${PROVIDER_FIELDS}`,
    variables: (req) => ({ organizationId: req.params.organizationId, input: req.body }),
    result: (data) => data.createSamlProvider,
    status: 201,
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/saml/:samlProviderId',
    operationId: 'getOrganizationSAMLProviderById',
    document: `query SamlProvider($organizationId: ID!, $providerId: ID!) {
      organization(id: $organizationId) { samlProvider(id: $providerId) { ...SamlProviderFields } }
    } ${PROVIDER_FIELDS}`,
    variables: ids,
    result: (data) => data.organization.samlProvider,
  },
  {
    method: 'PATCH',
    path: '/orgs/:organizationId/saml/:samlProviderId',
    operationId: 'updateOrganizationSAMLProvider',
    document: `mutation UpdateSamlProvider($organizationId: ID!, $providerId: ID!, $input: UpdateSamlProviderInput!) {
      updateSamlProvider(organizationId: $organizationId, providerId: $providerId, input: $input) { ...SamlProviderFields }
    } ${PROVIDER_FIELDS}`,
    variables: (req) => ({ ...ids(req), input: req.body }),
    result: (data) => data.updateSamlProvider,
  },
  {
    method: 'DELETE',
    path: '/orgs/:organizationId/saml/:samlProviderId',
    operationId: 'deleteOrganizationSAMLProvider',
    document: `mutation DeleteSamlProvider($organizationId: ID!, $providerId: ID!) { deleteSamlProvider(organizationId: $organizationId, providerId: $providerId) }`,
    variables: ids,
    result: () => undefined,
    status: (data) => deletedStatus(data.deleteSamlProvider),
  },
  {
    method: 'GET',
    path: '/orgs/:organizationId/sso',
    operationId: 'listSSOProviderLoginsInOrganization',
    document: `query SsoLogins($organizationId: ID!) { ssoLogins(organizationId: $organizationId) { items { id label startURL } } }`,
    variables: (req) => ({ organizationId: req.params.organizationId }),
    result: (data) => data.ssoLogins,
  },
];
