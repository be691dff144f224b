import type { Services } from '../../context.js';
import { badRequest } from '../../errors.js';
import type { GitSyncConnection } from '../../generated/prisma/client.js';
import { serverKeys, type ServerKeys } from '../../secrets.js';
import { GitError, parseRemote, WorkingCopy, type Remote } from './git.js';
import { generateDeployKey, readHostKey, readPrivateKey, type DeployKey } from './ssh-keys.js';

/**
 * A connection's credential: the token of an HTTPS URL (user:token@), or for an SSH remote a
 * deploy key. Sealed with the server key (context git-sync:<spaceId>), never answered, never logged.
 *
 * SSH remotes and deploy keys (the official API is silent: its ImportGitRepository and
 * ExportToGitRepository have only `url`, "can contain basic auth credentials"). The `url` may be
 * `ssh://git@host[:port]/path` or `git@host:path`. Lectern's additions to the request body:
 * - `sshPrivateKey` (optional): a private key the user already registered (OpenSSH or PEM, no
 *   passphrase). Without it, Lectern generates an ed25519 key pair for the connection the first
 *   time, and keeps it while the remote stays the same (re-sending the request, or changing the
 *   branch or folder, does not change the key the user registered). The private key is sealed like
 *   a token (`credential`), never answered, never logged; only the PUBLIC key is shown:
 *   `sshPublicKey` in the Git Sync state (getSpaceGitInfo), to paste as a deploy key at GitHub,
 *   GitLab or Gitea (with write access for exports). The first import of a new key fails with a
 *   message saying exactly that; once the key is added, the next poll (or importGitRepository
 *   again) succeeds with the same key.
 * - `sshHostKey` (optional): the server's host key (`ssh-ed25519 AAAA…`, as `ssh-keyscan` or the
 *   provider's documentation give it) to insist on. Without it: trust on first use, per connection:
 *   the key seen at the first connection is recorded (`sshHostKey` in the state) and any other key
 *   is refused afterwards, with a message saying how to give the new one. A new host (or port)
 *   forgets the recorded key.
 */
const SEAL = (spaceId: string) => `git-sync:${spaceId}`;

/** What a request brings for the credential, checked and sealed before its transaction. */
export interface RequestedCredential {
  keys: ServerKeys;
  spaceId: string;
  /** The URL's token, sealed (null: the URL has none). */
  sealedToken: string | null;
  /** For an SSH remote: the key pair given (`sshPrivateKey`), the host key given (`sshHostKey`). */
  suppliedKey: DeployKey | null;
  hostKey: string | null;
}

/** The request's `sshPrivateKey`, `sshHostKey` and URL token: 400 naming the field when one cannot be used. */
export async function requestedCredential(
  services: Parameters<typeof serverKeys>[0],
  spaceId: string,
  remote: Remote,
  req: { sshPrivateKey?: string; sshHostKey?: string },
): Promise<RequestedCredential> {
  if (!remote.ssh)
    for (const key of ['sshPrivateKey', 'sshHostKey'] as const)
      if (req[key]) throw badRequest(key, 'is only for an SSH remote (ssh://git@host/path or git@host:path)');
  const suppliedKey = req.sshPrivateKey ? readPrivateKey(req.sshPrivateKey, deployKeyComment(spaceId)) : null;
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
  const keys = await serverKeys(services);
  const sealedToken = remote.token ? keys.seal(SEAL(spaceId), remote.token) : null;
  return { keys, spaceId, sealedToken, suppliedKey, hostKey };
}

const deployKeyComment = (spaceId: string) => `lectern-space-${spaceId}`;

/**
 * The credential columns of a connection recorded from a request, given the connection there was
 * (`moved`: another remote, branch or folder than `existing`).
 */
export function credentialColumns(
  requested: RequestedCredential,
  remote: Remote,
  existing: GitSyncConnection | null,
  moved: boolean,
): { credential: string | null; sshPublicKey: string | null; sshHostKey: string | null } {
  const { keys, spaceId } = requested;
  if (!remote.ssh)
    return {
      // A request without a credential keeps the stored one for the same remote.
      credential: requested.sealedToken ?? (moved || existing?.sshPublicKey ? null : (existing?.credential ?? null)),
      sshPublicKey: null,
      sshHostKey: null,
    };
  const before = existing?.url === remote.url && existing.sshPublicKey && keys.open(SEAL(spaceId), existing.credential) ? existing : null;
  const made = requested.suppliedKey ?? (before ? null : generateDeployKey(deployKeyComment(spaceId)));
  // The recorded host key is kept for the same host and port (only SSH connections have one).
  const previous = existing?.sshHostKey ? parseRemote(existing.url).ssh : undefined;
  const sameHost = previous && previous.host === remote.ssh.host && previous.port === remote.ssh.port;
  return {
    credential: made ? keys.seal(SEAL(spaceId), made.privateKey) : before!.credential!,
    sshPublicKey: made ? made.publicKey : before!.sshPublicKey!,
    sshHostKey: requested.hostKey ?? (sameHost ? existing!.sshHostKey : null),
  };
}

/** The connection's remote with its credential opened. */
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
export async function openCopy(services: Services, conn: GitSyncConnection): Promise<WorkingCopy> {
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
