import { boolParam, type RestRoute } from '../../rest/route.js';
import { ORGANIZATION_FIELDS } from './routes.js';

/** The organization operations that start from the caller rather than from an organization (see creation.ts). */
export const organizationAccountRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/orgs',
    operationId: 'createOrganization',
    document: `mutation CreateOrganization($input: CreateOrganizationInput!, $withDefaultSite: Boolean) {
      createOrganization(input: $input, withDefaultSite: $withDefaultSite) { ...OrganizationFields }
    } ${ORGANIZATION_FIELDS}`,
    variables: (req) => ({ input: req.body, withDefaultSite: boolParam(req.query, 'withDefaultSite') }),
    result: (data) => data.createOrganization,
    status: 201,
  },
  {
    method: 'GET',
    path: '/email-domains/:emailDomain/orgs',
    operationId: 'getOrganizationsForEmailDomain',
    document: `query EmailDomainOrgs($emailDomain: String!) { organizationsForEmailDomain(emailDomain: $emailDomain) { organizations { ...OrganizationFields } } } ${ORGANIZATION_FIELDS}`,
    variables: (req) => ({ emailDomain: req.params.emailDomain }),
    result: (data) => data.organizationsForEmailDomain,
  },
];
