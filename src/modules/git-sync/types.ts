import { builder } from '../../graphql/builder.js';
import { GitSyncStateType, type GitSyncStateJson } from '../spaces/index.js';
import { getSpaceGitInfo, requestGitOperation } from './service.js';
import { disconnectGitSync, spaceGitWebhook, updateGitSync } from './webhook.js';

// GraphQL of Git sync: the official GitSyncState (typed by the spaces module: Space.gitSync), and the two
// operations that connect a space and queue a job. The request bodies are the official
// ImportGitRepository / ExportToGitRepository, checked field by field in the service (400 naming the field).
builder.queryFields((t) => ({
  spaceGitInfo: t.field({
    type: GitSyncStateType,
    description: "The space's Git Sync state (404 when it is not connected); never its credential",
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: async (_r, { spaceId }, ctx) => (await getSpaceGitInfo(ctx, String(spaceId))) as GitSyncStateJson,
  }),
}));

builder.mutationFields((t) => ({
  importGitRepository: t.boolean({
    description: 'Connect the space to a repository (URL with its token, branch, folder) and queue an import: Git → Lectern',
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, { spaceId, input }, ctx) => requestGitOperation(ctx, String(spaceId), input, 'import'),
  }),
  exportToGitRepository: t.boolean({
    description: "Connect the space to a repository and queue an export of main's content: Lectern → Git, one commit",
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: 'JSON', required: true }) },
    resolve: (_r, { spaceId, input }, ctx) => requestGitOperation(ctx, String(spaceId), input, 'export'),
  }),
}));

const GitWebhookType = builder.objectRef<Awaited<ReturnType<typeof spaceGitWebhook>>>('GitWebhook').implement({
  description: 'The push webhook of a synchronised space (its secret: space admins only)',
  fields: (t) => ({
    object: t.string({ resolve: () => 'git-webhook' }),
    url: t.exposeString('url'),
    secret: t.exposeString('secret', { description: 'Signs the deliveries (HMAC-SHA256)' }),
    contentType: t.exposeString('contentType'),
    events: t.exposeStringList('events'),
    ref: t.exposeString('ref', { description: 'The branch whose pushes trigger an import' }),
  }),
});

// Lectern's additions: the push webhook (URL and secret, space admins only), the poll interval, disconnecting.
builder.queryFields((t) => ({
  spaceGitWebhook: t.field({
    type: GitWebhookType,
    description: 'The push webhook to configure at GitHub, GitLab or Gitea: URL, secret (space admins only), events',
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: (_r, { spaceId }, ctx) => spaceGitWebhook(ctx, String(spaceId)),
  }),
}));

builder.mutationFields((t) => ({
  regenerateSpaceGitWebhookSecret: t.field({
    type: GitWebhookType,
    description: 'Replaces the webhook secret (deliveries signed with the old one are refused from now on)',
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: (_r, { spaceId }, ctx) => spaceGitWebhook(ctx, String(spaceId), true),
  }),
  updateSpaceGitSync: t.field({
    type: GitSyncStateType,
    description: 'Changes the Git Sync settings of a connected space (pollSeconds: 0 = off, 30..86400); answers the GitSyncState',
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: 'JSON', required: true }) },
    resolve: async (_r, { spaceId, input }, ctx) => (await updateGitSync(ctx, String(spaceId), input)) as GitSyncStateJson,
  }),
  disconnectSpaceGitSync: t.boolean({
    description:
      'Disconnects the space from its repository (its content stays; credential and webhook secret are deleted). False when it was not connected',
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: (_r, { spaceId }, ctx) => disconnectGitSync(ctx, String(spaceId)),
  }),
}));
