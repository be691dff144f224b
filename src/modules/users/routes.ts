import type { Query } from '../../generated/schema-types.js';
import type { RestRoute } from '../../rest/route.js';

export const USER_FIELDS = /* GraphQL */ `fragment UserFields on User { object id displayName email photoURL urls { location } }`;

export const userRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/user',
    operationId: 'getAuthenticatedUser',
    document: `query Viewer { viewer { ...UserFields } } ${USER_FIELDS}`,
    result: (data: Pick<Query, 'viewer'>) => data.viewer,
  },
];
