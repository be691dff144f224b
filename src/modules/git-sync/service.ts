import type { Context, Services } from '../../context.js';
import { settings } from '../../config.js';
import { requireSpace } from '../../auth/permissions.js';
import { badRequest, notFound } from '../../errors.js';
import type { GitSyncConnection, Prisma } from '../../generated/prisma/client.js';
import { newId } from '../../ids.js';
import { runIsolated } from '../../jobs/isolate.js';
import { enqueueJob, type JobDefinition } from '../../jobs/queue.js';
import { serverKeys } from '../../secrets.js';
import {
  Content,
  ContentWriter,
  getBodies,
  mergeContents,
  putBody,
  reindexSpace,
  type FileEntry,
  type PageEntry,
} from '../content/index.js';
import { GitError, parseRemote, WorkingCopy, type Remote } from './git.js';
import { SyncBusy, withSpaceSyncLock } from './lock.js';
import { newWebhookSecret } from './webhook-secret.js';
import { generateDeployKey, readHostKey, readPrivateKey } from './ssh-keys.js';
import {
  assignPaths,
  DEFAULT_CONFIG,
  INCLUDES,
  layoutPageFields,
  type GitBookConfig,
  type KnownIds,
  type LayoutPage,
  type RepoFile,
  type SpaceLayout,
} from './layout.js';
import type { ReadResult } from './tasks.js';
import { createHash } from 'node:crypto';

/**
 * Git sync of a space: the connection (remote, branch, folder, sealed credential), the
 * official operations (getSpaceGitInfo, importGitRepository, exportToGitRepository) and the jobs
 * that do the work on the queue (src/jobs/queue.ts):
 * - `git-sync.import`: Git → Lectern. The branch's files become a content (layout.ts, in a worker
 *   thread); when main has not moved since the last sync it becomes main's next revision, else a
 *   three-way merge (content's mergeContents) with the last synced revision as the base; a true
 *   conflict opens a change request holding Git's side (its subject names the pages), main is left
 *   as it is, nothing is lost.
 * - `git-sync.export`: Lectern → Git. Main's content written as files, one commit authored by the
 *   person who merged (message: the change request's subject and number), pushed; a push the remote
 *   refuses because the branch moved runs the import first, then pushes again once.
 * - `git-sync.poll`: per connection, every `pollSeconds`: an import when the branch has a new commit.
 * The operation's state (running, success, failure with a message that says what to do) is on the
 * connection and on the space's `gitSync` (the official GitSyncState).
 *
 * SSH remotes and deploy keys (the official API is silent: its ImportGitRepository and
 * ExportToGitRepository have only `url`, "can contain basic auth credentials"). The `url` may be
 * `ssh://git@host[:port]/path` or `git@host:path`. Lectern's additions to the request body:
 * - `sshPrivateKey` (optional): a private key the user already registered (OpenSSH or PEM, no
 *   passphrase). Without it, Lectern generates an ed25519 key pair for the connection the first
 *   time, and keeps it while the remote stays the same (re-sending the request, or changing the
 *   branch or folder, does not change the key the user registered). The private key is sealed like
 *   a token (`credential`, context git-sync:<spaceId>), never answered, never logged; only the
 *   PUBLIC key is shown: `sshPublicKey` in the Git Sync state (getSpaceGitInfo), to paste as a
 *   deploy key at GitHub, GitLab or Gitea (with write access for exports). The first import of a
 *   new key fails with a message saying exactly that; once the key is added, the next poll (or
 *   importGitRepository again) succeeds with the same key.
 * - `sshHostKey` (optional): the server's host key (`ssh-ed25519 AAAA…`, as `ssh-keyscan` or the
 *   provider's documentation give it) to insist on. Without it: trust on first use, per connection:
 *   the key seen at the first connection is recorded (`sshHostKey` in the state) and any other key
 *   is refused afterwards, with a message saying how to give the new one. A new host (or port)
 *   forgets the recorded key.
 */
type Tx = Prisma.TransactionClient;
const SEAL = (spaceId: string) => `git-sync:${spaceId}`;
export const IMPORT_JOB = 'git-sync.import';
export const EXPORT_JOB = 'git-sync.export';
export const POLL_JOB = 'git-sync.poll';
const TASKS = new URL('./tasks.ts', import.meta.url);
const ISOLATE = { timeoutMs: 120_000, memoryMb: 512 };

interface Operation {
  state: 'running' | 'failure' | 'success' | 'timeout';
  direction: 'import' | 'export';
  startedAt: string;
  endedAt?: string;
  error?: string;
}

/** The official GitSyncState of a connection (no credential in it, ever). */
export function gitSyncState(conn: GitSyncConnection) {
  const url = conn.url.startsWith('/') ? `file://${conn.url}` : conn.url;
  // The repository's path: a URL's path (https://host/owner/repo.git, ssh://git@host:2222/owner/repo.git),
  // what follows the colon of an scp-like SSH remote (git@host:owner/repo.git), or the local path.
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(conn.url);
  const repoPath = isUrl
    ? URL.canParse(conn.url)
      ? new URL(conn.url).pathname
      : conn.url
    : conn.url.startsWith('/')
      ? conn.url
      : conn.url.replace(/^[^:]*:/, '');
  const repoName = repoPath
    .replace(/\.git$/, '')
    .split('/')
    .filter(Boolean)
    .slice(-2)
    .join('/');
  return {
    repoName,
    installationId: conn.spaceId,
    // Lectern's own remote-and-credential connection: shown as GitHub's provider (the only values the official enum has).
    installationProvider: 'github',
    installationStatus:
      conn.operation && (conn.operation as unknown as Operation).error?.startsWith('the remote refused the credential')
        ? 'unauthenticated'
        : 'active',
    url: `${url.replace(/\/$/, '')}${conn.folder ? `/tree/${conn.ref.replace('refs/heads/', '')}/${conn.folder}` : ''}`,
    ...(conn.operation ? { operation: conn.operation } : {}),
    operationTimeout: 120_000,
    updatedAt: conn.updatedAt.toISOString(),
    // Lectern's additions (not secret): where the sync stands.
    ref: conn.ref,
    folder: conn.folder,
    lastCommit: conn.lastCommit,
    // SSH remotes: the deploy key's PUBLIC key (to add to the repository) and the host key trusted.
    ...(conn.sshPublicKey ? { sshPublicKey: conn.sshPublicKey } : {}),
    ...(conn.sshHostKey ? { sshHostKey: conn.sshHostKey } : {}),
  };
}

export async function getSpaceGitInfo(ctx: Context, spaceId: string) {
  await requireSpace(ctx, spaceId, 'read');
  const conn = await ctx.prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn) throw notFound('Git Sync configuration');
  return gitSyncState(conn);
}

interface GitRequest {
  url: string;
  ref: string;
  commitMessage?: string;
  repoProjectDirectory?: string;
  force?: boolean;
  standalone?: boolean;
  /** Lectern's additions for SSH remotes (see the top). */
  sshPrivateKey?: string;
  sshHostKey?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readRequest(input: unknown, direction: 'import' | 'export'): GitRequest {
  if (!isObject(input)) throw badRequest('body', 'must be an object');
  const str = (key: string, required: boolean) => {
    const v = input[key];
    if (v === undefined || v === null) {
      if (required) throw badRequest(key, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || !v.trim()) throw badRequest(key, 'must be a non-empty string');
    if (v.length > 2048) throw badRequest(key, 'must be at most 2048 characters');
    return v.trim();
  };
  const url = str('url', true)!;
  const ref = str('ref', true)!;
  if (!/^refs\/heads\/[\w./-]+$/.test(ref) || ref.includes('..')) throw badRequest('ref', 'must be a branch ref, refs/heads/<name>');
  const commitMessage = str('commitMessage', direction === 'export');
  const folder = (str('repoProjectDirectory', false) ?? '').replace(/^\.?\/+|\/+$/g, '');
  if (folder.split('/').some((p) => p === '..' || p === '.git'))
    throw badRequest('repoProjectDirectory', 'must be a folder inside the repository');
  for (const key of ['force', 'standalone'] as const)
    if (input[key] !== undefined && typeof input[key] !== 'boolean') throw badRequest(key, 'must be true or false');
  for (const key of ['sshPrivateKey', 'sshHostKey'] as const) {
    const v = input[key];
    // Not str(): its message would be fine, but a key is never trimmed into an error or echoed.
    if (v !== undefined && v !== null && (typeof v !== 'string' || !v.trim() || v.length > 16_384))
      throw badRequest(key, 'must be a non-empty string of at most 16384 characters');
  }
  return {
    url,
    ref,
    commitMessage,
    repoProjectDirectory: folder,
    force: input.force as boolean | undefined,
    standalone: input.standalone as boolean | undefined,
    ...(typeof input.sshPrivateKey === 'string' ? { sshPrivateKey: input.sshPrivateKey } : {}),
    ...(typeof input.sshHostKey === 'string' ? { sshHostKey: input.sshHostKey } : {}),
  };
}

/**
 * importGitRepository / exportToGitRepository: records (or updates) the space's connection from
 * the request (the URL's credential sealed, the URL kept without it) and queues the job. 204.
 * `standalone` is refused: Lectern keeps one connection per space (say so rather than ignore it).
 */
export async function requestGitOperation(ctx: Context, spaceId: string, input: unknown, direction: 'import' | 'export'): Promise<boolean> {
  const space = await requireSpace(ctx, spaceId, 'admin');
  const req = readRequest(input, direction);
  if (req.standalone)
    throw badRequest('standalone', 'standalone operations are not supported by this server: a space has one Git connection');
  let remote: Remote;
  try {
    remote = parseRemote(req.url);
  } catch (error) {
    if (error instanceof GitError) throw badRequest('url', error.message);
    throw error;
  }
  if (!remote.ssh)
    for (const key of ['sshPrivateKey', 'sshHostKey'] as const)
      if (req[key]) throw badRequest(key, 'is only for an SSH remote (ssh://git@host/path or git@host:path)');
  const comment = `lectern-space-${space.id}`;
  const suppliedKey = req.sshPrivateKey ? readPrivateKey(req.sshPrivateKey, comment) : null;
  if (req.sshPrivateKey && !suppliedKey)
    throw badRequest(
      'sshPrivateKey',
      'is not a private key Lectern can use: an OpenSSH or PEM private key (ed25519, ECDSA or RSA) without a passphrase',
    );
  const hostKey = req.sshHostKey ? readHostKey(req.sshHostKey) : null;
  if (req.sshHostKey && !hostKey)
    throw badRequest(
      'sshHostKey',
      'is not an SSH public host key: give it as `<type> <base64>`, e.g. `ssh-ed25519 AAAA…` (ssh-keyscan prints it)',
    );
  const keys = await serverKeys(ctx);
  const credential = remote.token ? keys.seal(SEAL(space.id), remote.token) : null;
  const now = new Date();
  await ctx.prisma.$transaction(async (tx) => {
    const existing = await tx.gitSyncConnection.findUnique({ where: { spaceId } });
    // Another remote, branch or folder: a new connection (the old sync state means nothing there).
    const moved = existing && (existing.url !== remote.url || existing.ref !== req.ref || existing.folder !== req.repoProjectDirectory);
    let ssh: { credential: string; sshPublicKey: string; sshHostKey: string | null } | null = null;
    if (remote.ssh) {
      const before =
        existing?.url === remote.url && existing.sshPublicKey && keys.open(SEAL(space.id), existing.credential) ? existing : null;
      const made = suppliedKey ?? (before ? null : generateDeployKey(comment));
      // The recorded host key is kept for the same host and port (only SSH connections have one).
      const previous = existing?.sshHostKey ? parseRemote(existing.url).ssh : undefined;
      const sameHost = previous && previous.host === remote.ssh.host && previous.port === remote.ssh.port;
      ssh = {
        credential: made ? keys.seal(SEAL(space.id), made.privateKey) : before!.credential!,
        sshPublicKey: made ? made.publicKey : before!.sshPublicKey!,
        sshHostKey: hostKey ?? (sameHost ? existing!.sshHostKey : null),
      };
    }
    const data = {
      url: remote.url,
      ref: req.ref,
      folder: req.repoProjectDirectory ?? '',
      // A request without a credential keeps the stored one for the same remote.
      credential: ssh ? ssh.credential : (credential ?? (moved || existing?.sshPublicKey ? null : (existing?.credential ?? null))),
      sshPublicKey: ssh?.sshPublicKey ?? null,
      sshHostKey: ssh?.sshHostKey ?? null,
      operation: { state: 'running', direction, startedAt: now.toISOString() } as Prisma.InputJsonValue,
      ...(moved ? { lastCommit: null, lastRevisionId: null, paths: {}, config: undefined } : {}),
      // A new connection gets its webhook secret (webhook.ts); an update of the same one keeps it.
      webhookSecret: !moved && existing?.webhookSecret ? existing.webhookSecret : newWebhookSecret(keys, spaceId),
    };
    const conn = existing
      ? await tx.gitSyncConnection.update({ where: { spaceId }, data })
      : await tx.gitSyncConnection.create({ data: { spaceId, createdById: ctx.caller.id, ...data } });
    await tx.space.update({ where: { id: spaceId }, data: { gitSync: gitSyncState(conn) as Prisma.InputJsonValue } });
    const payload = {
      spaceId,
      userId: ctx.caller.id,
      force: req.force ?? false,
      ...(req.commitMessage ? { message: req.commitMessage } : {}),
    };
    await enqueueJob(tx, direction === 'import' ? IMPORT_JOB : EXPORT_JOB, payload, { maxAttempts: 2 });
    if (!existing && conn.pollSeconds > 0)
      await enqueueJob(tx, POLL_JOB, { spaceId }, { runAfter: new Date(now.getTime() + conn.pollSeconds * 1000) });
  });
  return true;
}

/**
 * Called by writers of main (change request merges, live edits) inside their transaction: a
 * connected space gets an export job (one commit per call). One indexed read when not connected.
 */
export async function afterMainMoved(
  tx: Tx,
  event: { spaceId: string; revisionId: string; userId: string; changeRequest?: { number: number; subject: string | null } },
): Promise<void> {
  const conn = await tx.gitSyncConnection.findUnique({ where: { spaceId: event.spaceId }, select: { spaceId: true } });
  if (!conn) return;
  const message = event.changeRequest
    ? `${event.changeRequest.subject || 'Untitled change request'} (#${event.changeRequest.number})`
    : 'Live edits in Lectern';
  await enqueueJob(
    tx,
    EXPORT_JOB,
    { spaceId: event.spaceId, userId: event.userId, revisionId: event.revisionId, message },
    { maxAttempts: 2 },
  );
}

// ---------------------------------------------------------------------------------------------
// The jobs
// ---------------------------------------------------------------------------------------------

async function remoteOf(services: Services, conn: GitSyncConnection): Promise<Remote> {
  const keys = await serverKeys(services);
  const secret = conn.credential ? keys.open(SEAL(conn.spaceId), conn.credential) : null;
  const remote = parseRemote(conn.url);
  if (remote.ssh) {
    if (!secret)
      throw new GitError(
        'the remote refused the credential: the stored deploy key cannot be opened (the server key changed): connect again (importGitRepository) to make a new key, and add its public key to the repository',
        'auth',
      );
    return { ...remote, ssh: { ...remote.ssh, privateKey: secret, ...(conn.sshHostKey ? { hostKey: conn.sshHostKey } : {}) } };
  }
  if (conn.credential && !secret)
    throw new GitError(
      'the stored credential cannot be opened (the server key changed): send the repository URL with its token again',
      'auth',
    );
  return { ...remote, ...(secret ? { token: secret } : {}) };
}

/**
 * The connection's working copy. For an SSH remote seen for the first time (no host key yet), the
 * host key ssh saw is recorded, even when the operation then failed (e.g. a deploy key not added
 * yet): trust on first use, the first recorded key wins.
 */
async function openCopy(services: Services, conn: GitSyncConnection): Promise<WorkingCopy> {
  const remote = await remoteOf(services, conn);
  try {
    return await WorkingCopy.open(remote, conn.ref);
  } finally {
    const seen = remote.ssh?.seenHostKey;
    if (seen && !conn.sshHostKey) {
      await services.db.prisma.gitSyncConnection.updateMany({
        where: { spaceId: conn.spaceId, url: conn.url, sshHostKey: null },
        data: { sshHostKey: seen },
      });
    }
  }
}

async function record(
  services: Services,
  spaceId: string,
  direction: 'import' | 'export',
  outcome: { error?: string; startedAt: Date },
  data: Prisma.GitSyncConnectionUpdateInput = {},
) {
  const operation: Operation = {
    state: outcome.error ? 'failure' : 'success',
    direction,
    startedAt: outcome.startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    ...(outcome.error ? { error: outcome.error } : {}),
  };
  const prisma = services.db.prisma;
  const conn = await prisma.gitSyncConnection
    .update({ where: { spaceId }, data: { ...data, operation: operation as unknown as Prisma.InputJsonValue } })
    .catch(() => null);
  if (conn) await prisma.space.update({ where: { id: spaceId }, data: { gitSync: gitSyncState(conn) as Prisma.InputJsonValue } });
}

const blobHash = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** The content a read layout makes on top of `base` (pages replaced, ids and dates kept where they match). */
async function contentFromLayout(tx: Tx, base: Content, read: ReadResult, now: string): Promise<string> {
  const { layout, links } = read;
  const writer = new ContentWriter(base);
  const old = new Map((await base.allPages()).map((p) => [p.id, p]));
  const keep = new Set(layout.pages.map((p) => p.id));
  for (const id of old.keys()) if (!keep.has(id)) await writer.remove(id);
  const docs = layout.pages.filter((p) => p.type === 'document');
  // One body at a time (content's face offers putBody; a batched putBodies there would save statements on big imports).
  const hashes: string[] = [];
  for (const p of docs) hashes.push(await putBody(tx, p.markdown ?? '', links[p.id] ?? []));
  const bodyOf = new Map(docs.map((p, i) => [p.id, hashes[i]!]));
  // Positions: a page keeps its position while the order allows it (fewer changes to merge).
  const lastAt = new Map<string | null, number>();
  for (const page of layout.pages) {
    const before = old.get(page.id);
    const prev = lastAt.get(page.parent) ?? -Infinity;
    const position =
      before && before.parent === page.parent && before.position > prev
        ? before.position
        : Number.isFinite(prev)
          ? Math.floor(prev) + 1
          : 0;
    lastAt.set(page.parent, position);
    const entry: PageEntry = {
      id: page.id,
      parent: page.parent,
      position,
      type: page.type,
      title: page.title,
      slug: page.slug,
      ...layoutPageFields(page),
      ...(before?.condition ? { condition: before.condition } : {}),
      ...(page.type === 'document' ? { body: bodyOf.get(page.id) } : {}),
      ...(page.type === 'link' ? { href: page.href } : {}),
      createdAt: before?.createdAt ?? now,
      updatedAt: now,
    };
    const unchanged = before && JSON.stringify({ ...before, updatedAt: '' }) === JSON.stringify({ ...entry, updatedAt: '' });
    await writer.put(unchanged ? before : entry);
  }
  const oldFiles = new Map((await base.files()).map((f) => [f.id, f]));
  const files: FileEntry[] = [];
  for (const file of layout.files) {
    const data = Buffer.from(file.data);
    const blob = blobHash(data);
    await tx.fileBlob.createMany({ data: [{ hash: blob, data, size: data.length }], skipDuplicates: true });
    const before = oldFiles.get(file.id);
    files.push(
      before && before.blob === blob && before.name === file.name
        ? before
        : { id: file.id, name: file.name, contentType: file.contentType, size: data.length, blob, createdAt: before?.createdAt ?? now },
    );
  }
  writer.setFiles(files);
  // Reusable contents (.gitbook/includes/<slug>.md): Git's list replaces the revision's; an unchanged one keeps its entry.
  const oldReusable = new Map((await base.reusableContents()).map((r) => [r.id, r]));
  const includes = read.layout.includes ?? [];
  const reusable = [];
  for (const inc of includes) {
    const body = await putBody(tx, inc.markdown, links[inc.id] ?? []);
    const before = oldReusable.get(inc.id);
    reusable.push(
      before && before.body === body && before.title === inc.title && before.slug === inc.slug
        ? before
        : { id: inc.id, title: inc.title, slug: inc.slug, body, createdAt: before?.createdAt ?? now, updatedAt: now },
    );
  }
  if (reusable.length || oldReusable.size) writer.setReusableContents(reusable);
  return writer.write(tx);
}

const knownOf = (conn: GitSyncConnection): KnownIds => (conn.paths as KnownIds) ?? {};

/** Git → Lectern. Returns whether main changed. */
export async function importFromGit(
  services: Services,
  spaceId: string,
  opts: { force?: boolean; userId?: string; copy?: WorkingCopy } = {},
): Promise<{ revision: string | null; conflict?: string }> {
  const prisma = services.db.prisma;
  const conn = await prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn) return { revision: null };
  const copy = opts.copy ?? (await openCopy(services, conn));
  try {
    if (!copy.head) return { revision: null }; // an empty branch: nothing to import
    if (copy.head === conn.lastCommit && !opts.force) return { revision: null };
    const files = await copy.files();
    const read = await runIsolated<ReadResult>(TASKS, 'readTask', { files, folder: conn.folder, known: knownOf(conn) }, ISOLATE);
    const now = new Date().toISOString();
    const paths = pathsOf(read.layout);
    return await prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT id FROM "Space" WHERE id = ${spaceId} FOR UPDATE`;
        const space = (await tx.space.findUnique({ where: { id: spaceId } }))!;
        const lastRevision = conn.lastRevisionId ? await tx.revision.findUnique({ where: { id: conn.lastRevisionId } }) : null;
        const base = await Content.load(
          tx,
          lastRevision?.manifest ?? (await tx.revision.findUnique({ where: { id: space.revisionId } }))!.manifest,
        );
        const ours = await Content.load(tx, (await tx.revision.findUnique({ where: { id: space.revisionId } }))!.manifest);
        // Git's side, on top of the last synced content (or of main, the first time).
        const theirsManifest = await contentFromLayout(tx, lastRevision ? base : ours, read, now);
        const author = opts.userId ?? conn.createdById;
        let manifest: string | null = theirsManifest;
        const parents = [space.revisionId];
        if (lastRevision && lastRevision.id !== space.revisionId) {
          const merged = await mergeContents(tx, base, ours, await Content.load(tx, theirsManifest), { main: 'ours' });
          if (!merged.manifest) {
            // A true conflict: Git's side goes to a change request forked from the last synced revision.
            const theirs = newId();
            await tx.revision.create({
              data: { id: theirs, spaceId, parents: [lastRevision.id], type: 'edits', manifest: theirsManifest, createdById: author },
            });
            const last = await tx.changeRequest.aggregate({ where: { spaceId }, _max: { number: true } });
            const pages = merged.conflicts.map((c) => c.title || c.page).join(', ');
            const cr = await tx.changeRequest.create({
              data: {
                id: newId(),
                spaceId,
                number: (last._max.number ?? 0) + 1,
                status: 'open',
                subject: `Git sync conflict: ${pages}`.slice(0, 100),
                createdById: author ?? space.organizationId,
                revisionId: theirs,
                revisionInitial: lastRevision.id,
                revisionMergedAncestor: lastRevision.id,
                contributors: author ? [author] : [],
              },
            });
            await tx.gitSyncConnection.update({ where: { spaceId }, data: { lastCommit: copy.head } });
            return { revision: null, conflict: `change request #${cr.number}: ${pages}` };
          }
          manifest = merged.manifest;
        }
        const current = (await tx.revision.findUnique({ where: { id: space.revisionId } }))!;
        let revision = space.revisionId;
        if (manifest !== current.manifest) {
          revision = newId();
          await tx.revision.create({
            data: {
              id: revision,
              spaceId,
              parents,
              type: lastRevision && lastRevision.id !== space.revisionId ? 'merge' : 'edits',
              manifest,
              createdById: author,
            },
          });
          await tx.space.update({ where: { id: spaceId }, data: { revisionId: revision } });
          await reindexSpace(tx, spaceId, space.revisionId, revision);
        }
        await tx.gitSyncConnection.update({
          where: { spaceId },
          data: {
            lastCommit: copy.head,
            lastRevisionId: revision,
            paths: paths as Prisma.InputJsonValue,
            config: read.layout.config as unknown as Prisma.InputJsonValue,
          },
        });
        return { revision: revision === space.revisionId ? null : revision };
      },
      { timeout: 60_000 },
    );
  } finally {
    if (!opts.copy) await copy.close();
  }
}

function pathsOf(
  layout: Pick<SpaceLayout, 'pages' | 'files' | 'includes'>,
  assigned?: { pages: Map<string, string>; files: Map<string, string> },
): KnownIds {
  const pages: Record<string, string> = {};
  const files: Record<string, string> = {};
  for (const p of layout.pages) {
    const path = assigned?.pages.get(p.id) ?? p.path;
    if (path) pages[path] = p.id;
    else if (p.type === 'group') pages[`#group:${p.title}`] = p.id;
    else if (p.type === 'link') pages[`#link:${p.href}`] = p.id;
  }
  for (const f of layout.files) {
    const path = assigned?.files.get(f.id) ?? f.path;
    if (path) files[path] = f.id;
  }
  const includes = Object.fromEntries((layout.includes ?? []).map((i) => [i.slug, i.id]));
  const frontMatter = Object.fromEntries(layout.pages.filter((p) => p.frontMatter).map((p) => [p.id, p.frontMatter!]));
  return { pages, files, ...(layout.includes?.length ? { includes } : {}), ...(Object.keys(frontMatter).length ? { frontMatter } : {}) };
}

/** Main's content as a layout (paths remembered from the last sync). */
function layoutOfMain(services: Services, conn: GitSyncConnection, manifest: string): Promise<SpaceLayout> {
  return layoutOfContent(
    services.db.prisma,
    manifest,
    knownOf(conn),
    (conn.config as unknown as GitBookConfig | null) ?? { ...DEFAULT_CONFIG, root: conn.folder },
  );
}

/** A revision's content as a layout: `known` gives pages and files their remembered paths (else GitBook's). */
export async function layoutOfContent(
  prisma: Services['db']['prisma'],
  manifest: string,
  known: KnownIds = {},
  config: GitBookConfig = DEFAULT_CONFIG,
): Promise<SpaceLayout> {
  const content = await Content.load(prisma, manifest);
  const entries = await content.allPages();
  const reusable = await content.reusableContents();
  const bodies = await getBodies(
    prisma,
    [...entries.map((e) => e.body), ...reusable.map((r) => r.body)].filter((b): b is string => !!b),
  );
  const byParent = new Map<string | null, PageEntry[]>();
  for (const e of entries) byParent.set(e.parent, [...(byParent.get(e.parent) ?? []), e]);
  const pathOf = new Map(Object.entries(known.pages ?? {}).map(([path, id]) => [id, path]));
  const filePathOf = new Map(Object.entries(known.files ?? {}).map(([path, id]) => [id, path]));
  const pages: LayoutPage[] = [];
  const walk = (parent: string | null) => {
    for (const e of (byParent.get(parent) ?? []).sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : 1))) {
      if (e.type === 'computed') continue; // computed pages are Lectern's own: not files
      const path = pathOf.get(e.id);
      pages.push({
        id: e.id,
        parent: e.parent,
        type: e.type as LayoutPage['type'],
        title: e.title,
        slug: e.slug,
        ...(e.description ? { description: e.description } : {}),
        ...(e.icon ? { icon: e.icon } : {}),
        ...(e.emoji ? { emoji: e.emoji } : {}),
        ...(e.hidden ? { hidden: true } : {}),
        ...(e.noIndex ? { noIndex: true } : {}),
        ...(e.noRobotsIndex ? { noRobotsIndex: true } : {}),
        ...(e.type === 'document' ? { markdown: bodies.get(e.body!) ?? '' } : {}),
        ...(e.type === 'link' ? { href: e.href } : {}),
        ...(path && !path.startsWith('#') ? { path } : {}),
        ...(known.frontMatter?.[e.id] && e.type === 'document' ? { frontMatter: known.frontMatter[e.id] } : {}),
      });
      walk(e.id);
    }
  };
  walk(null);
  const files = await content.files();
  const blobs = await prisma.fileBlob.findMany({ where: { hash: { in: files.map((f) => f.blob) } } });
  const dataOf = new Map(blobs.map((b) => [b.hash, new Uint8Array(b.data)]));
  return {
    config,
    pages,
    files: files.map((f) => ({
      id: f.id,
      name: f.name,
      contentType: f.contentType,
      data: dataOf.get(f.blob) ?? new Uint8Array(),
      ...(filePathOf.get(f.id) ? { path: filePathOf.get(f.id) } : {}),
    })),
    ...(reusable.length
      ? {
          includes: [...reusable]
            .sort((a, b) => (a.slug < b.slug ? -1 : 1))
            .map((r) => ({ id: r.id, title: r.title, slug: r.slug, markdown: bodies.get(r.body) ?? '' })),
        }
      : {}),
    skipped: [],
  };
}

/** Lectern → Git: one commit of main's content, pushed. Returns the commit (null: nothing to commit). */
export async function exportToGit(
  services: Services,
  spaceId: string,
  opts: { message?: string; userId?: string } = {},
  retried = false,
): Promise<string | null> {
  const prisma = services.db.prisma;
  let conn = await prisma.gitSyncConnection.findUnique({ where: { spaceId } });
  if (!conn) return null;
  const copy = await openCopy(services, conn);
  try {
    // The branch moved since the last sync: bring its commits in first (three-way), then export.
    if (copy.head && conn.lastCommit && copy.head !== conn.lastCommit) {
      await importFromGit(services, spaceId, { copy, userId: opts.userId });
      conn = (await prisma.gitSyncConnection.findUnique({ where: { spaceId } }))!;
    }
    const space = (await prisma.space.findUnique({ where: { id: spaceId } }))!;
    const revision = (await prisma.revision.findUnique({ where: { id: space.revisionId } }))!;
    const layout = await layoutOfMain(services, conn, revision.manifest);
    const files = await runIsolated<RepoFile[]>(TASKS, 'writeTask', { layout, folder: conn.folder }, ISOLATE);
    const root = layout.config.root;
    const under = (p: string) => (root ? `${root}/${p}` : p);
    // What the previous sync owned, and GitBook's own files: replaced; anything else in the folder stays.
    const existing = (await copy.files(root)).map((f) => f.path);
    const owned = new Set(
      [...Object.keys(knownOf(conn).pages ?? {}), ...Object.keys(knownOf(conn).files ?? {})].filter((p) => !p.startsWith('#')).map(under),
    );
    const remove = existing.filter(
      (p) =>
        owned.has(p) ||
        p === under(layout.config.summary) ||
        p.startsWith(under('.gitbook/assets/')) ||
        p.startsWith(under(`${INCLUDES}/`)),
    );
    await copy.replace(files, remove);
    const user = opts.userId ? await prisma.user.findUnique({ where: { id: opts.userId } }) : null;
    const commit = await copy.commit(opts.message || 'Update from Lectern', {
      name: user?.displayName ?? 'Lectern',
      email: user?.email ?? 'lectern@localhost',
    });
    if (commit) {
      try {
        await copy.push();
      } catch (error) {
        if (error instanceof GitError && error.kind === 'rejected' && !retried) {
          await copy.close();
          // Someone pushed meanwhile: their commits come in first, then this export again.
          await importFromGit(services, spaceId, { userId: opts.userId });
          return exportToGit(services, spaceId, opts, true);
        }
        throw error;
      }
    }
    const assigned = pathsOf(layout, assignPaths(layout));
    await prisma.gitSyncConnection.update({
      where: { spaceId },
      data: { lastCommit: copy.head, lastRevisionId: space.revisionId, paths: assigned as Prisma.InputJsonValue },
    });
    return commit;
  } finally {
    await copy.close();
  }
}

const describe = (error: unknown) => (error instanceof GitError ? error.message : error instanceof Error ? error.message : String(error));

/** How long a job waits for another process's sync of the same space before it re-queues itself. */
const REQUEUE_MS = 5_000;

/**
 * A sync job's work under the space's sync lock (lock.ts), its outcome recorded. When another
 * process holds the lock, the job is queued again a little later (`requeue`; the poll job just
 * skips its turn: the next poll comes anyway) and nothing is recorded.
 */
async function runRecorded(
  services: Services,
  spaceId: string,
  direction: 'import' | 'export',
  work: () => Promise<unknown>,
  requeue?: { kind: string; payload: unknown },
) {
  const startedAt = new Date();
  try {
    await withSpaceSyncLock(services, spaceId, work, { waitMs: settings().git.lockWaitMs });
    await record(services, spaceId, direction, { startedAt });
  } catch (error) {
    if (error instanceof SyncBusy) {
      if (requeue)
        await enqueueJob(services.db.prisma, requeue.kind, requeue.payload, {
          runAfter: new Date(Date.now() + REQUEUE_MS),
          maxAttempts: 2,
        });
      return;
    }
    // A Git problem is a result the user acts on (recorded, not retried); anything else is retried by the queue.
    if (error instanceof GitError || (error as Error)?.name === 'IsolatedTaskError' || (error as Error)?.name === 'IsolateLimitError') {
      await record(services, spaceId, direction, { startedAt, error: describe(error) });
      return;
    }
    throw error;
  }
}

export const gitSyncJobs: JobDefinition[] = [
  {
    kind: IMPORT_JOB,
    handler: (payload: { spaceId: string; userId?: string; force?: boolean }, services) =>
      runRecorded(
        services,
        payload.spaceId,
        'import',
        () => importFromGit(services, payload.spaceId, { force: payload.force, userId: payload.userId }),
        { kind: IMPORT_JOB, payload },
      ),
    abandoned: (payload: { spaceId: string }, services, message) =>
      record(services, payload.spaceId, 'import', { startedAt: new Date(), error: message }),
  },
  {
    kind: EXPORT_JOB,
    handler: (payload: { spaceId: string; userId?: string; message?: string }, services) =>
      runRecorded(
        services,
        payload.spaceId,
        'export',
        () => exportToGit(services, payload.spaceId, { message: payload.message, userId: payload.userId }),
        { kind: EXPORT_JOB, payload },
      ),
    abandoned: (payload: { spaceId: string }, services, message) =>
      record(services, payload.spaceId, 'export', { startedAt: new Date(), error: message }),
  },
  {
    kind: POLL_JOB,
    handler: async (payload: { spaceId: string }, services) => {
      const conn = await services.db.prisma.gitSyncConnection.findUnique({ where: { spaceId: payload.spaceId } });
      if (!conn || conn.pollSeconds <= 0) return; // disconnected, or polling turned off: the chain ends
      await runRecorded(services, payload.spaceId, 'import', () => importFromGit(services, payload.spaceId));
      await enqueueJob(
        services.db.prisma,
        POLL_JOB,
        { spaceId: payload.spaceId },
        { runAfter: new Date(Date.now() + conn.pollSeconds * 1000) },
      );
    },
  },
];
