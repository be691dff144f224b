import { deletedStatus, type RestRoute } from '../../rest/route.js';
import type {
  GetSpaceGitInfoQuery,
  GetSpaceGitWebhookQuery,
  RegenerateSpaceGitWebhookSecretMutation,
  UpdateSpaceGitSyncMutation,
} from '../../generated/rest-operations.js';
import { GIT_SYNC_STATE_SELECTION } from '../spaces/index.js';

const WEBHOOK = '{ object url secret contentType events ref }';

const space = (req: { params: Record<string, string> }) => ({ spaceId: req.params.spaceId });

/** The official space-git operations (0.202.0). The GitHub/GitLab installation operations are not served: see index.ts. */
export const gitSyncRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/spaces/:spaceId/git/info',
    operationId: 'getSpaceGitInfo',
    document: `query getSpaceGitInfo($spaceId: ID!) { spaceGitInfo(spaceId: $spaceId) ${GIT_SYNC_STATE_SELECTION} }`,
    variables: space,
    result: (data: GetSpaceGitInfoQuery) => data.spaceGitInfo,
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/git/import',
    operationId: 'importGitRepository',
    document: `mutation importGitRepository($spaceId: ID!, $input: ImportGitRepositoryInput!) { importGitRepository(spaceId: $spaceId, input: $input) }`,
    variables: (req) => ({ ...space(req), input: req.body }),
    result: () => undefined,
    status: 204,
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/git/export',
    operationId: 'exportToGitRepository',
    document: `mutation exportToGitRepository($spaceId: ID!, $input: ExportToGitRepositoryInput!) { exportToGitRepository(spaceId: $spaceId, input: $input) }`,
    variables: (req) => ({ ...space(req), input: req.body }),
    result: () => undefined,
    status: 204,
  },
  // Lectern's additions (no official operation: the official API's Git Sync goes through GitHub/GitLab Apps).
  {
    method: 'GET',
    path: '/spaces/:spaceId/git/webhook',
    operationId: 'lectern:getSpaceGitWebhook',
    document: `query getSpaceGitWebhook($spaceId: ID!) { spaceGitWebhook(spaceId: $spaceId) ${WEBHOOK} }`,
    variables: space,
    result: (data: GetSpaceGitWebhookQuery) => data.spaceGitWebhook,
  },
  {
    method: 'POST',
    path: '/spaces/:spaceId/git/webhook/regenerate',
    operationId: 'lectern:regenerateSpaceGitWebhookSecret',
    document: `mutation regenerateSpaceGitWebhookSecret($spaceId: ID!) { regenerateSpaceGitWebhookSecret(spaceId: $spaceId) ${WEBHOOK} }`,
    variables: space,
    result: (data: RegenerateSpaceGitWebhookSecretMutation) => data.regenerateSpaceGitWebhookSecret,
  },
  {
    method: 'PATCH',
    path: '/spaces/:spaceId/git',
    operationId: 'lectern:updateSpaceGitSync',
    document: `mutation updateSpaceGitSync($spaceId: ID!, $input: UpdateSpaceGitSyncInput!) { updateSpaceGitSync(spaceId: $spaceId, input: $input) ${GIT_SYNC_STATE_SELECTION} }`,
    variables: (req) => ({ ...space(req), input: req.body }),
    result: (data: UpdateSpaceGitSyncMutation) => data.updateSpaceGitSync,
  },
  {
    method: 'DELETE',
    path: '/spaces/:spaceId/git',
    operationId: 'lectern:disconnectSpaceGitSync',
    document: `mutation disconnectSpaceGitSync($spaceId: ID!) { disconnectSpaceGitSync(spaceId: $spaceId) }`,
    variables: space,
    result: () => undefined,
    status: (data) => deletedStatus(data.disconnectSpaceGitSync),
  },
];
