import { builder } from '../../graphql/builder.js';
import { GitSyncStateType, type GitSyncStateJson } from '../spaces/index.js';
import { requestGitOperation } from './requests.js';
import { getSpaceGitInfo } from './status.js';
import { disconnectGitSync, spaceGitWebhook, updateGitSync } from './webhook.js';

// GraphQL of Git sync: the official GitSyncState (typed by the spaces module: Space.gitSync), and the two
// operations that connect a space and queue a job. The request bodies are the official
// ImportGitRepository / ExportToGitRepository, checked further by requests.ts (400 naming the field).
builder.queryFields((t) => ({
  spaceGitInfo: t.field({
    type: GitSyncStateType,
    description: "The space's Git Sync state (404 when it is not connected); never its credential",
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: async (_r, { spaceId }, ctx) => (await getSpaceGitInfo(ctx, String(spaceId))) as GitSyncStateJson,
  }),
}));

const GitProviderEnum = builder.enumType('GitInfoProvider', { values: ['github', 'gitlab'] as const });

const GitInfoInput = builder.inputType('UpdateSpaceGitInfoInput', {
  description: 'Deprecated, accepted and not kept: metadata about the Git provider',
  fields: (t) => ({ provider: t.field({ type: GitProviderEnum, required: false }), url: t.string({ required: false }) }),
});

// url and ref (and commitMessage for an export) are required: requests.ts names a missing one.
const gitRequestFields = (t: any, commitMessage: boolean) => ({
  url: t.string({ required: false, description: 'Required: the repository URL (https with its token, or an SSH remote)' }),
  ref: t.string({ required: false, description: 'Required: the branch, refs/heads/<name>' }),
  ...(commitMessage ? { commitMessage: t.string({ required: false, description: 'Required: the message of the commit' }) } : {}),
  repoCacheID: t.string({ required: false, description: 'Deprecated, accepted and not used' }),
  repoTreeURL: t.string({ required: false }),
  repoCommitURL: t.string({ required: false }),
  repoProjectDirectory: t.string({ required: false, description: 'The folder of the content in the repository' }),
  timestamp: t.string({ required: false, description: 'When the triggering event happened (ISO date-time)' }),
  force: t.boolean({ required: false }),
  standalone: t.boolean({ required: false, description: 'Refused: a space has one Git connection' }),
  gitInfo: t.field({ type: GitInfoInput, required: false }),
  sshPrivateKey: t.string({ required: false, description: 'For an SSH remote: the private key' }),
  sshHostKey: t.string({ required: false, description: "For an SSH remote: the server's host key" }),
});

const ImportInput = builder.inputType('ImportGitRepositoryInput', { fields: (t) => gitRequestFields(t, false) });
const ExportInput = builder.inputType('ExportToGitRepositoryInput', { fields: (t) => gitRequestFields(t, true) });

const UpdateGitSyncInput = builder.inputType('UpdateSpaceGitSyncInput', {
  fields: (t) => ({ pollSeconds: t.int({ required: false, description: 'How often the remote is polled: 0 = off, 30..86400' }) }),
});

builder.mutationFields((t) => ({
  importGitRepository: t.boolean({
    description: 'Connect the space to a repository (URL with its token, branch, folder) and queue an import: Git → Lectern',
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: ImportInput, required: true }) },
    resolve: (_r, { spaceId, input }, ctx) => requestGitOperation(ctx, String(spaceId), input, 'import'),
  }),
  exportToGitRepository: t.boolean({
    description: "Connect the space to a repository and queue an export of main's content: Lectern → Git, one commit",
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: ExportInput, required: true }) },
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
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: UpdateGitSyncInput, required: true }) },
    resolve: async (_r, { spaceId, input }, ctx) => (await updateGitSync(ctx, String(spaceId), input)) as GitSyncStateJson,
  }),
  disconnectSpaceGitSync: t.boolean({
    description:
      'Disconnects the space from its repository (its content stays; credential and webhook secret are deleted). False when it was not connected',
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: (_r, { spaceId }, ctx) => disconnectGitSync(ctx, String(spaceId)),
  }),
}));
