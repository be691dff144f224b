import type { RestRoute } from '../../rest/route.js';
import { USER_FIELDS } from './routes.js';

/** Users by id (profile.ts) and the API's own information (api-information.ts). */
export const userProfileRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/',
    operationId: 'getApiInformation',
    document: `query ApiInformation { apiInformation { version build } }`,
    result: (data) => data.apiInformation,
  },
  {
    method: 'GET',
    path: '/users/:userId',
    operationId: 'getUserById',
    document: `query User($id: ID!) { user(id: $id) { ...UserFields } } ${USER_FIELDS}`,
    variables: (req) => ({ id: req.params.userId }),
    result: (data) => data.user,
  },
  {
    method: 'PATCH',
    path: '/users/:userId',
    operationId: 'updateUserById',
    document: `mutation UpdateUser($id: ID!, $input: UpdateUserInput!) { updateUser(id: $id, input: $input) { ...UserFields } } ${USER_FIELDS}`,
    variables: (req) => ({ id: req.params.userId, input: req.body }),
    result: (data) => data.updateUser,
  },
];
