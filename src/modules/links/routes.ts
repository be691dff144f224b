import { PAGE_REST_FIELDS, restPage, type RestPageFields } from '../content/index.js';
import { LIST_FIELDS, listVariables, type RestRequest, type RestRoute } from '../../rest/route.js';
import { ORGANIZATION_FIELDS } from '../orgs/index.js';
import { SPACE_FIELDS } from '../spaces/index.js';

/**
 * Links listings and backlinks, on a space's main content and on a change request's content.
 * GraphQL gives the space and its organization once; GitBook's ContentLocation repeats them in
 * every page and file location, which `withOwner` does here.
 */
const LOCATION_FIELDS = /* GraphQL */ `
fragment LinkLocationFields on LinkLocation {
  kind page { ...RestPageFields } file { id name contentType downloadURL size } url internalLocation { type anchor }
}
${PAGE_REST_FIELDS}`;
const LISTING_FIELDS = /* GraphQL */ `
fragment LinkListingFields on LinkListing {
  items { status relation targetReference { ...LinkLocationFields } locationReferences { ...LinkLocationFields } }
  stats { total broken { total changeRequest } }
  ${LIST_FIELDS}
}
${LOCATION_FIELDS}`;
const OWNER = `...SpaceFields owningOrganization { ...OrganizationFields }`;
const OWNER_FRAGMENTS = `${SPACE_FIELDS} ${ORGANIZATION_FIELDS}`;

type Location = { kind: string; [key: string]: unknown };

/** Puts the organization and space objects into every page and file location of a result. */
function withOwner(spaceData: any, pick: (space: any) => any) {
  const { owningOrganization: organization, content: _content, changeRequest: _changeRequest, ...space } = spaceData;
  // A location's page is its official JSON without subpages.
  const locate = ({ kind, page, ...rest }: Location) =>
    kind === 'url'
      ? { kind, ...rest }
      : { kind, organization, space, ...(page ? { page: restPage(page as RestPageFields, []) } : {}), ...rest };
  const list = pick(spaceData);
  const items = list.items.map((item: any) =>
    item.kind
      ? locate(item)
      : {
          ...item,
          ...(item.targetReference ? { targetReference: locate(item.targetReference) } : {}),
          locationReferences: item.locationReferences.map(locate),
        },
  );
  return { ...list, items };
}

const statusVariable = (req: RestRequest) => ({ status: req.query.status || undefined });

interface LinkRead {
  /** The route on the main content, and on a change request's. */
  spacePath: string;
  changeRequestPath: string;
  spaceOperation: string;
  changeRequestOperation: string;
  args: Record<string, string>;
  variables: (req: RestRequest) => Record<string, unknown>;
  /** Selection on the Revision. */
  selection: string;
  /**
   * Set for reads the ChangeRequest type serves itself (they add the change request's broken-link
   * stats), with its extra arguments; the others read the change request's content.
   */
  changeRequest?: { args?: Record<string, string>; variables?: (req: RestRequest) => Record<string, unknown>; selection?: string };
  fragments: string;
  pick: (revision: any) => any;
}

const READS: LinkRead[] = [
  {
    spacePath: '/spaces/:spaceId/links',
    changeRequestPath: '/spaces/:spaceId/change-requests/:changeRequestId/links',
    spaceOperation: 'listSpaceLinks',
    changeRequestOperation: 'listChangeRequestLinks',
    args: { page: 'String', limit: 'Int', status: 'LinkStatus' },
    variables: (req) => ({ ...listVariables(req), ...statusVariable(req) }),
    selection: 'links(page: $page, limit: $limit, status: $status) { ...LinkListingFields }',
    changeRequest: {
      args: { brokenContext: 'LinkBrokenContext' },
      variables: (req) => ({ brokenContext: req.query.brokenContext || undefined }),
      selection: 'links(page: $page, limit: $limit, status: $status, brokenContext: $brokenContext) { ...LinkListingFields }',
    },
    fragments: LISTING_FIELDS,
    pick: (r) => r.links,
  },
  {
    spacePath: '/spaces/:spaceId/content/page/:pageId/links',
    changeRequestPath: '/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/links',
    spaceOperation: 'listPageLinksInSpace',
    changeRequestOperation: 'listPageLinksInChangeRequest',
    args: { pageId: 'ID!', page: 'String', limit: 'Int', status: 'LinkStatus' },
    variables: (req) => ({ pageId: req.params.pageId, ...listVariables(req), ...statusVariable(req) }),
    selection: 'pageLinks(id: $pageId, page: $page, limit: $limit, status: $status) { ...LinkListingFields }',
    changeRequest: {},
    fragments: LISTING_FIELDS,
    pick: (r) => r.pageLinks,
  },
  {
    spacePath: '/spaces/:spaceId/content/files/:fileId/backlinks',
    changeRequestPath: '/spaces/:spaceId/change-requests/:changeRequestId/content/files/:fileId/backlinks',
    spaceOperation: 'listSpaceFileBacklinks',
    changeRequestOperation: 'listChangeRequestFileBacklinks',
    args: { fileId: 'ID!', page: 'String', limit: 'Int' },
    variables: (req) => ({ fileId: req.params.fileId, ...listVariables(req) }),
    selection: `fileBacklinks(id: $fileId, page: $page, limit: $limit) { items { ...LinkLocationFields } ${LIST_FIELDS} }`,
    fragments: LOCATION_FIELDS,
    pick: (r) => r.fileBacklinks,
  },
  {
    spacePath: '/spaces/:spaceId/content/page/:pageId/backlinks',
    changeRequestPath: '/spaces/:spaceId/change-requests/:changeRequestId/content/page/:pageId/backlinks',
    spaceOperation: 'listSpacePageBacklinks',
    changeRequestOperation: 'listChangeRequestPageBacklinks',
    args: { pageId: 'ID!', page: 'String', limit: 'Int' },
    variables: (req) => ({ pageId: req.params.pageId, ...listVariables(req) }),
    selection: `pageBacklinks(id: $pageId, page: $page, limit: $limit) { items { ...LinkLocationFields } ${LIST_FIELDS} }`,
    fragments: LOCATION_FIELDS,
    pick: (r) => r.pageBacklinks,
  },
];

const declare = (args: Record<string, string>) =>
  Object.entries(args)
    .map(([name, type]) => `, $${name}: ${type}`)
    .join('');

export const linkRoutes: RestRoute[] = READS.flatMap((read) => [
  {
    method: 'GET' as const,
    path: read.spacePath,
    operationId: read.spaceOperation,
    document: `query ${read.spaceOperation}($spaceId: ID!${declare(read.args)}) {
      space(id: $spaceId) { ${OWNER} content { ${read.selection} } }
    } ${read.fragments} ${OWNER_FRAGMENTS}`,
    variables: (req: RestRequest) => ({ spaceId: req.params.spaceId, ...read.variables(req) }),
    result: (data: any) => withOwner(data.space, (s) => read.pick(s.content)),
  },
  {
    method: 'GET' as const,
    path: read.changeRequestPath,
    operationId: read.changeRequestOperation,
    document: `query ${read.changeRequestOperation}($spaceId: ID!, $changeRequestId: String!${declare({ ...read.args, ...read.changeRequest?.args })}) {
      space(id: $spaceId) { ${OWNER} changeRequest(id: $changeRequestId) {
        ${read.changeRequest ? (read.changeRequest.selection ?? read.selection) : `content { ${read.selection} }`}
      } }
    } ${read.fragments} ${OWNER_FRAGMENTS}`,
    variables: (req: RestRequest) => ({
      spaceId: req.params.spaceId,
      changeRequestId: req.params.changeRequestId,
      ...read.variables(req),
      ...read.changeRequest?.variables?.(req),
    }),
    result: (data: any) => withOwner(data.space, (s) => read.pick(read.changeRequest ? s.changeRequest : s.changeRequest.content)),
  },
]);
