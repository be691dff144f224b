import { builder } from '../../graphql/builder.js';

/**
 * A space's Git Sync state (official GitSyncState) and its visitor authentication (official
 * VisitorAuth), typed. The git-sync module writes the state (its `gitSyncState`) onto the space
 * and answers it from spaceGitInfo/updateSpaceGitSync with this same type.
 */
export interface GitSyncStateJson {
  repoName?: string;
  installationId?: string;
  installationProvider?: 'github' | 'gitlab' | 'github-legacy';
  installationStatus?: 'unauthenticated' | 'active' | 'pending';
  url?: string;
  operation?: {
    state: 'running' | 'failure' | 'success' | 'timeout';
    direction: 'import' | 'export';
    startedAt: string;
    endedAt?: string;
    error?: string;
  };
  operationTimeout?: number;
  updatedAt?: string;
  ref?: string;
  folder?: string;
  lastCommit?: string | null;
  sshPublicKey?: string;
  sshHostKey?: string;
}

const GitSyncProviderEnum = builder.enumType('GitSyncProvider', {
  values: { github: { value: 'github' }, gitlab: { value: 'gitlab' }, github_legacy: { value: 'github-legacy' } } as const,
});
const GitSyncInstallationStatusEnum = builder.enumType('GitSyncInstallationStatus', {
  values: ['unauthenticated', 'active', 'pending'] as const,
});
const GitSyncOperationStateEnum = builder.enumType('GitSyncOperationState', {
  values: ['running', 'failure', 'success', 'timeout'] as const,
});
const GitSyncDirectionEnum = builder.enumType('GitSyncOperationDirection', { values: ['import', 'export'] as const });

const GitSyncOperationType = builder.objectRef<NonNullable<GitSyncStateJson['operation']>>('GitSyncOperation').implement({
  description: 'The latest import or export',
  fields: (t) => ({
    state: t.field({ type: GitSyncOperationStateEnum, resolve: (o) => o.state }),
    direction: t.field({ type: GitSyncDirectionEnum, resolve: (o) => o.direction }),
    startedAt: t.string({ description: 'ISO 8601', resolve: (o) => o.startedAt }),
    endedAt: t.string({ nullable: true, resolve: (o) => o.endedAt ?? null }),
    error: t.string({ nullable: true, description: 'Why it failed, when it did', resolve: (o) => o.error ?? null }),
  }),
});

export const GitSyncStateType = builder.objectRef<GitSyncStateJson>('GitSyncState').implement({
  description: 'Where a space’s Git Sync stands (never its credential). Every field is optional, as in the official GitSyncState',
  fields: (t) => ({
    repoName: t.exposeString('repoName', { nullable: true }),
    installationId: t.exposeString('installationId', { nullable: true }),
    installationProvider: t.field({ type: GitSyncProviderEnum, nullable: true, resolve: (s) => s.installationProvider ?? null }),
    installationStatus: t.field({ type: GitSyncInstallationStatusEnum, nullable: true, resolve: (s) => s.installationStatus ?? null }),
    url: t.exposeString('url', { nullable: true, description: 'The repository tree' }),
    operation: t.field({ type: GitSyncOperationType, nullable: true, resolve: (s) => s.operation ?? null }),
    operationTimeout: t.exposeInt('operationTimeout', { nullable: true, description: 'Milliseconds' }),
    updatedAt: t.string({ nullable: true, description: 'ISO 8601', resolve: (s) => s.updatedAt ?? null }),
    ref: t.exposeString('ref', { nullable: true, description: 'The branch synchronised (refs/heads/…)' }),
    folder: t.exposeString('folder', { nullable: true, description: "The repository folder the space maps to ('' = the top)" }),
    lastCommit: t.string({
      nullable: true,
      extensions: { restKeepNull: true },
      description: 'The last commit synchronised',
      resolve: (s) => s.lastCommit ?? null,
    }),
    sshPublicKey: t.string({
      nullable: true,
      description: 'SSH remotes: the deploy key’s public key',
      resolve: (s) => s.sshPublicKey ?? null,
    }),
    sshHostKey: t.string({ nullable: true, description: 'SSH remotes: the host key trusted', resolve: (s) => s.sshHostKey ?? null }),
  }),
});

// The REST documents' selections, key for key as the JSON they replace. `operation` is read back
// from a jsonb column, whose objects come back with keys ordered by length, then bytes; so does
// the whole state stored on the space (Space.gitSync), while spaceGitInfo builds it in code order.
const OPERATION = 'operation { error state endedAt direction startedAt }';
/** A GitSyncState as the git-sync module builds it (spaceGitInfo, updateSpaceGitSync). */
export const GIT_SYNC_STATE_SELECTION = `{ repoName installationId installationProvider installationStatus url ${OPERATION} operationTimeout updatedAt ref folder lastCommit sshPublicKey sshHostKey }`;
/** Space.gitSync: the same state as stored on the space (jsonb order). */
export const STORED_GIT_SYNC_SELECTION = `{ ref url folder repoName ${OPERATION} updatedAt lastCommit sshHostKey sshPublicKey installationId operationTimeout installationStatus installationProvider }`;

const VisitorAuthBackendEnum = builder.enumType('VisitorAuthBackend', { values: ['custom', 'integration'] as const });
export const VisitorAuthType = builder.objectRef<{ backend: 'custom' | 'integration'; integration?: string }>('VisitorAuth').implement({
  description: 'How visitors of the published space authenticate (official VisitorAuth; Lectern sets none on spaces)',
  fields: (t) => ({
    backend: t.field({ type: VisitorAuthBackendEnum, resolve: (v) => v.backend }),
    integration: t.string({
      nullable: true,
      description: 'The integration used as backend (backend integration)',
      resolve: (v) => v.integration ?? null,
    }),
  }),
});
export const VISITOR_AUTH_SELECTION = '{ backend integration }';
