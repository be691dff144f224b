import { execFile } from 'node:child_process';
import { settings, type Settings } from '../../config.js';
import { chmod, mkdtemp, readFile, rm, mkdir, writeFile, unlink } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, posix, resolve, sep } from 'node:path';
import { checkedAddresses, OutboundRefused, PRIVATE_HINT } from '../../outbound/index.js';
import type { RepoFile } from './repository-layout.js';

/**
 * Git, through the `git` command line (2.30+; /usr/bin/git on the servers and CI).
 *
 * Why the CLI rather than a pure-JavaScript library (isomorphic-git): it is the reference
 * implementation, maintained with every protocol and server quirk (smart HTTP v2, shallow fetches,
 * push rejections with their exact reasons), streams large packs without holding them in the
 * server's heap, and runs in its own process with its own limits (a timeout kills it). isomorphic-git
 * would add a dependency that holds whole packs in memory and has no `curloptResolve`-style address
 * pinning for the outbound guard.
 *
 * The outbound guard applies to every remote: https (or http) or ssh only, the host resolved here
 * and every address checked against the private ranges (src/outbound/guard.ts) unless LECTERN_ALLOW_PRIVATE_NETWORK=1 (alias LECTERN_OPENAPI_ALLOW_PRIVATE), the connection
 * pinned to the checked address (`http.curloptResolve`; for ssh, `-o HostName=<address>`), no
 * redirects, no other protocol (ext::, file:// are refused by `protocol.allow`), a time limit per
 * command and a size limit on what is read. A local path is a remote only below a directory the
 * operator allows (LECTERN_GIT_LOCAL_ROOT). The token goes to git in the environment (GIT_CONFIG_* as
 * an Authorization header), never on a command line, and every message that leaves here is scrubbed.
 *
 * SSH remotes (`ssh://git@host[:port]/path`, scp-like `git@host:path`) authenticate with a deploy
 * key (credentials.ts says where it comes from). While a working copy is open, the private key is a
 * 0600 file in a 0700 temporary directory of its own (never inside the working copy, never on a
 * command line: GIT_SSH_COMMAND names the file), removed by `close()`. ssh runs with no
 * configuration file (`-F /dev/null`), no agent, no password or keyboard prompt, no proxy, no
 * forwarding, and a known_hosts file of this connection only: the host key the user gave or the one
 * recorded the first time (trust on first use: `StrictHostKeyChecking=accept-new` on an empty file,
 * the key seen is then stored with the connection, credentials.ts; from then on `yes`, so a changed
 * key is refused).
 */
export interface SshAccess {
  /** The host as written in the URL (a name or an address) and the port (22 by default). */
  host: string;
  port: number;
  /** The deploy key's private key (OpenSSH format). Secret: written to a 0600 file, never logged. */
  privateKey?: string;
  /** `<type> <base64>`: the host key to insist on; none = trust on first use. */
  hostKey?: string;
  /** Set by a working copy once ssh has talked to the server: the host key it saw (`<type> <base64>`). */
  seenHostKey?: string;
}

export interface Remote {
  /** What git is given: the URL without credentials, or the local path. */
  url: string;
  token?: string;
  local: boolean;
  ssh?: SshAccess;
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly kind: 'refused' | 'auth' | 'unreachable' | 'rejected' | 'too-large' | 'failed' = 'failed',
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export const gitSettings = (config: Settings = settings()) => config.git;

/**
 * A remote from what a user gave (`url` of importGitRepository / exportToGitRepository): an
 * http(s) URL whose `user:token@` is taken out as the credential, an SSH remote (its deploy key is
 * added by the caller), or an absolute local path.
 * Throws a GitError('refused') saying what is wrong.
 */
export function parseRemote(input: string, token?: string): Remote {
  if (input.startsWith('/') || input.startsWith('file:')) {
    const path = resolve(input.replace(/^file:\/\//, ''));
    const root = gitSettings().localRoot;
    if (!root)
      throw new GitError(
        'local paths as remotes are turned off on this server (its operator can allow a directory with LECTERN_GIT_LOCAL_ROOT)',
        'refused',
      );
    const base = resolve(root);
    if (path !== base && !path.startsWith(base + sep))
      throw new GitError(`local path must be below ${base} (LECTERN_GIT_LOCAL_ROOT)`, 'refused');
    return { url: path, local: true };
  }
  const ssh = parseSshRemote(input);
  if (ssh) {
    if (token) throw new GitError('an SSH remote authenticates with a deploy key, not a token', 'refused');
    return ssh;
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new GitError('must be an https URL of a Git repository (or a local path below LECTERN_GIT_LOCAL_ROOT)', 'refused');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new GitError(
      `the ${url.protocol.replace(':', '')} protocol is not supported: use an https URL with a token, or an SSH one (ssh://git@host/path or git@host:path) with a deploy key`,
      'refused',
    );
  const secret = token ?? (url.password ? decodeURIComponent(url.password) : url.username ? decodeURIComponent(url.username) : undefined);
  url.username = '';
  url.password = '';
  url.hash = '';
  return { url: url.href, ...(secret ? { token: secret } : {}), local: false };
}

const SCP_LIKE = /^(?:([A-Za-z0-9._-]+)@)?([A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\]):(?!\/\/)(.+)$/;

/**
 * An SSH remote: `ssh://[user@]host[:port]/path` or scp-like `[user@]host:path`; null when `input`
 * is neither. What would let git or ssh read part of it as an option (a leading `-`), whitespace,
 * control characters and a password are refused.
 */
function parseSshRemote(input: string): Remote | null {
  const scp = !/^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? SCP_LIKE.exec(input) : null;
  if (!scp && !/^ssh:\/\//i.test(input)) return null;
  if (/[\s\0-\x1f\x7f]/.test(input)) throw new GitError('an SSH remote must not contain spaces or control characters', 'refused');
  let host: string,
    port = 22,
    path: string,
    user: string | undefined,
    url: string;
  if (scp) {
    [, user, host, path] = scp as unknown as [string, string | undefined, string, string];
    url = input;
  } else {
    let parsed: URL;
    try {
      parsed = new URL(input);
    } catch {
      throw new GitError('is not a valid ssh:// URL (ssh://git@host[:port]/path)', 'refused');
    }
    if (parsed.password)
      throw new GitError('an SSH remote authenticates with a deploy key, not a password: remove it from the URL', 'refused');
    host = parsed.hostname;
    port = parsed.port ? Number(parsed.port) : 22;
    path = decodeURIComponent(parsed.pathname);
    user = parsed.username ? decodeURIComponent(parsed.username) : undefined;
    parsed.hash = '';
    parsed.search = '';
    url = parsed.href;
  }
  host = host.replace(/^\[|\]$/g, '');
  if (!host || host.startsWith('-') || (user ?? '').startsWith('-')) throw new GitError('the SSH remote has no valid host', 'refused');
  if (!path || path === '/' || path.startsWith('-'))
    throw new GitError('the SSH remote has no repository path (ssh://git@host/owner/repo.git or git@host:owner/repo.git)', 'refused');
  return { url, local: false, ssh: { host, port } };
}

/**
 * The checked address git must connect to: for http(s), as `http.curloptResolve` wants it
 * (undefined when the URL already is an address); for ssh, the address itself.
 */
async function pinnedAddress(remote: Remote): Promise<string | undefined> {
  if (remote.local) return undefined;
  let host: string;
  let port: string;
  if (remote.ssh) {
    host = remote.ssh.host;
    port = String(remote.ssh.port);
  } else {
    const url = new URL(remote.url);
    host = url.hostname.replace(/^\[|\]$/g, '');
    port = url.port || (url.protocol === 'https:' ? '443' : '80');
  }
  let addresses: string[];
  try {
    addresses = await checkedAddresses(host);
  } catch (error) {
    if (error instanceof OutboundRefused && error.code === 'EPRIVATE') throw new GitError(`${error.message}; ${PRIVATE_HINT}`, 'refused');
    throw new GitError(`the host ${host} could not be found (DNS): check the repository URL`, 'unreachable');
  }
  const address = addresses[0]!;
  if (remote.ssh) return address;
  return net.isIP(host) ? undefined : `${host}:${port}:${net.isIPv6(address) ? `[${address}]` : address}`;
}

/** Removes anything secret from a message git printed. */
function scrub(message: string, remote: Remote): string {
  let out = message.replace(/(https?:\/\/)[^/@\s]+@/g, '$1');
  if (remote.token) out = out.split(remote.token).join('***');
  if (remote.token) out = out.split(Buffer.from(`x-access-token:${remote.token}`).toString('base64')).join('***');
  return out.trim();
}

interface GitRun {
  cwd: string;
  remote?: Remote;
  pin?: string;
  env?: Record<string, string>;
  /** For an SSH remote: the working copy's key directory (`key`, `known_hosts`). */
  sshDir?: string;
}

/** The label of the remote's host key in a connection's known_hosts file (the file has no other). */
const HOST_KEY_ALIAS = 'lectern-git-remote';
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * GIT_SSH_COMMAND for an SSH remote: git appends `[-p port] [-o SendEnv=GIT_PROTOCOL] user@host
 * <git-upload-pack|git-receive-pack> '<path>'` (git refuses hosts and paths that start with `-`).
 * The host git names is the user's; ssh connects to `address` (checked by the guard) and checks the
 * host key under one alias, so the pin does not change what the key is compared against.
 */
function sshCommand(ssh: SshAccess, sshDir: string, address: string | undefined): string {
  const { timeoutMs } = gitSettings();
  const options = [
    'IdentitiesOnly=yes',
    'IdentityAgent=none',
    'BatchMode=yes',
    'PasswordAuthentication=no',
    'KbdInteractiveAuthentication=no',
    `UserKnownHostsFile=${shellQuote(join(sshDir, 'known_hosts'))}`,
    'GlobalKnownHostsFile=/dev/null',
    `StrictHostKeyChecking=${ssh.hostKey ? 'yes' : 'accept-new'}`,
    `HostKeyAlias=${HOST_KEY_ALIAS}`,
    ...(address ? [`HostName=${address}`] : []),
    'CheckHostIP=no',
    'UpdateHostKeys=no',
    'HashKnownHosts=no',
    'ProxyCommand=none',
    'ProxyJump=none',
    'ControlMaster=no',
    'ControlPath=none',
    'ForwardAgent=no',
    'ForwardX11=no',
    'ClearAllForwardings=yes',
    'PermitLocalCommand=no',
    `ConnectTimeout=${Math.max(1, Math.round(Math.min(timeoutMs, 30_000) / 1000))}`,
    'LogLevel=ERROR',
  ];
  return ['ssh', '-F', '/dev/null', '-i', shellQuote(join(sshDir, 'key')), ...options.flatMap((o) => ['-o', o])].join(' ');
}

function git(args: string[], run: GitRun): Promise<{ stdout: Buffer; stderr: string }> {
  const { timeoutMs, maxBytes } = gitSettings();
  const config: [string, string][] = [
    ['protocol.allow', 'never'],
    ['protocol.https.allow', 'always'],
    ['protocol.http.allow', 'always'],
    ['protocol.file.allow', run.remote?.local ? 'always' : 'never'],
    ['protocol.ssh.allow', run.remote?.ssh ? 'always' : 'never'],
    ['http.followRedirects', 'false'],
    ['core.symlinks', 'false'],
    ['core.hooksPath', '/dev/null'],
    ['init.defaultBranch', 'main'],
    ['advice.detachedHead', 'false'],
  ];
  if (run.pin) config.push(['http.curloptResolve', run.pin]);
  if (run.remote?.token)
    config.push(['http.extraHeader', `Authorization: Basic ${Buffer.from(`x-access-token:${run.remote.token}`).toString('base64')}`]);
  const env: Record<string, string> = {
    PATH: gitSettings().path,
    HOME: run.cwd,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ASKPASS: '/bin/false',
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(
      config.flatMap(([k, v], i) => [
        [`GIT_CONFIG_KEY_${i}`, k],
        [`GIT_CONFIG_VALUE_${i}`, v],
      ]),
    ),
    ...(run.remote?.ssh && run.sshDir ? { GIT_SSH_COMMAND: sshCommand(run.remote.ssh, run.sshDir, run.pin), GIT_SSH_VARIANT: 'ssh' } : {}),
    ...run.env,
  };
  return new Promise((done, fail) => {
    execFile(
      'git',
      args,
      { cwd: run.cwd, env, timeout: timeoutMs, maxBuffer: maxBytes + 1024 * 1024, encoding: 'buffer', killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        const err = stderr.toString('utf8');
        if (!error) return done({ stdout, stderr: err });
        const remote = run.remote ?? { url: '', local: false };
        const text = scrub(err || error.message, remote);
        if ((error as { killed?: boolean }).killed)
          return fail(
            new GitError(`git ${args[0]} took longer than ${Math.round(timeoutMs / 1000)} s (LECTERN_GIT_TIMEOUT_MS)`, 'unreachable'),
          );
        if ((error as { code?: string }).code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return fail(new GitError(`the repository is larger than ${maxBytes} bytes (LECTERN_GIT_MAX_BYTES)`, 'too-large'));
        if (run.remote?.ssh) {
          const host = run.remote.ssh.host;
          if (
            /Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|host key .* is known for|No \S+ host key is known/i.test(
              text,
            )
          )
            return fail(
              new GitError(
                `the SSH host key of ${host} is not the one this connection trusts (the key given as sshHostKey, or the one recorded at the first connection): if the server's key really changed, connect again with its new key in sshHostKey`,
                'refused',
              ),
            );
          if (
            /Permission denied \(|marked as read only|read-only deploy key|Load key .*: (invalid format|error in libcrypto)|no mutual signature/i.test(
              text,
            )
          ) {
            const readOnly =
              /marked as read only|read-only/i.test(text) || (args[0] === 'push' && /denied|not allowed|forbidden/i.test(text));
            return fail(
              new GitError(
                `the remote refused the credential (SSH deploy key) for ${host}: add the connection's public key (sshPublicKey in the Git Sync state) to the repository as a deploy key${readOnly || args[0] === 'push' ? ' with write access' : ''}, then run the operation again`,
                'auth',
              ),
            );
          }
          if (
            /Could not resolve hostname|Connection refused|Connection timed out|No route to host|Network is unreachable|kex_exchange_identification|Connection closed by|Connection reset/i.test(
              text,
            )
          ) {
            const reason = text.split('\n').find((l) => /ssh:|kex_exchange|Connection/i.test(l)) ?? text.split('\n').pop();
            return fail(new GitError(`the SSH server ${host}:${run.remote.ssh.port} could not be reached: ${reason}`, 'unreachable'));
          }
        }
        if (
          /Authentication failed|could not read Username|HTTP 401|HTTP 403|403 Forbidden|401 Unauthorized|terminal prompts disabled/i.test(
            text,
          )
        )
          return fail(
            new GitError(
              `the remote refused the credential: check that the token is valid and may ${args[0] === 'push' ? 'write to' : 'read'} the repository (${text.split('\n').pop()})`,
              'auth',
            ),
          );
        if (/\[rejected\]|non-fast-forward|fetch first|failed to push some refs/.test(text)) return fail(new GitError(text, 'rejected'));
        if (
          /Could not resolve host|Failed to connect|Connection refused|timed out|not found|does not appear to be a git repository|HTTP 404|unable to access/i.test(
            text,
          )
        )
          return fail(new GitError(`the repository could not be reached: ${text.split('\n').pop()}`, 'unreachable'));
        fail(new GitError(`git ${args[0]} failed: ${text.split('\n').slice(-3).join(' ')}`));
      },
    );
  });
}

/** A working copy of one branch of a remote, in a temporary directory (`close()` removes it). */
export class WorkingCopy {
  private constructor(
    readonly dir: string,
    readonly remote: Remote,
    private readonly pin: string | undefined,
    readonly ref: string,
    /** The branch's commit when fetched; null for a branch that does not exist yet (an empty repository). */
    public head: string | null,
    /** SSH remotes: the directory of the key and known_hosts files (outside the working copy). */
    private readonly sshDir?: string,
  ) {}

  private async run(args: string[], env?: Record<string, string>) {
    try {
      return await git(args, { cwd: this.dir, remote: this.remote, pin: this.pin, env, sshDir: this.sshDir });
    } finally {
      if (this.sshDir && this.remote.ssh && !this.remote.ssh.hostKey && !this.remote.ssh.seenHostKey) await this.readSeenHostKey();
    }
  }

  /** Trust on first use: the host key ssh recorded in the (empty) known_hosts file, if it got that far. */
  private async readSeenHostKey() {
    const text = await readFile(join(this.sshDir!, 'known_hosts'), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const words = line.trim().split(/\s+/);
      const at = words.findIndex((w) => /^(ssh-|ecdsa-|sk-)/.test(w));
      if (at > 0 && words[at + 1]) {
        this.remote.ssh!.seenHostKey = `${words[at]} ${words[at + 1]}`;
        return;
      }
    }
  }

  /** The key and known_hosts files of an SSH remote, in a directory of their own (0700; files 0600). */
  private static async sshFiles(ssh: SshAccess): Promise<string> {
    if (!ssh.privateKey)
      throw new GitError('this SSH connection has no deploy key: connect it again (importGitRepository) to make one', 'auth');
    const dir = await mkdtemp(join(tmpdir(), 'lectern-ssh-'));
    await chmod(dir, 0o700);
    await writeFile(join(dir, 'key'), ssh.privateKey, { mode: 0o600 });
    await writeFile(join(dir, 'known_hosts'), ssh.hostKey ? `${HOST_KEY_ALIAS} ${ssh.hostKey}\n` : '', { mode: 0o600 });
    return dir;
  }

  /** Fetches the branch `ref` (refs/heads/…) of `remote`, its last commit only. */
  static async open(remote: Remote, ref: string): Promise<WorkingCopy> {
    if (!/^refs\/heads\/[\w./-]+$/.test(ref) || ref.includes('..'))
      throw new GitError(`ref must be a branch, refs/heads/<name> (got ${ref})`, 'refused');
    const pin = await pinnedAddress(remote);
    const sshDir = remote.ssh ? await WorkingCopy.sshFiles(remote.ssh) : undefined;
    const dir = await mkdtemp(join(tmpdir(), 'lectern-git-')).catch(async (error) => {
      if (sshDir) await rm(sshDir, { recursive: true, force: true });
      throw error;
    });
    const copy = new WorkingCopy(dir, remote, pin, ref, null, sshDir);
    try {
      await copy.run(['init', '-q', '.']);
      const { stdout } = await copy.run(['ls-remote', '--', remote.url, ref]);
      const line = stdout.toString('utf8').trim().split('\n')[0];
      if (line) {
        await copy.run(['fetch', '-q', '--no-tags', '--depth=1', '--', remote.url, `+${ref}:refs/remotes/origin/sync`]);
        copy.head = (await copy.run(['rev-parse', 'refs/remotes/origin/sync'])).stdout.toString().trim();
        await copy.run(['checkout', '-q', '-B', 'sync', 'refs/remotes/origin/sync']);
      } else {
        await copy.run(['checkout', '-q', '-b', 'sync']);
      }
      return copy;
    } catch (error) {
      await copy.close();
      throw error;
    }
  }

  /** The files of the commit (below `folder` when given), within the size and count limits; submodules and symlinks left out. */
  async files(folder = ''): Promise<RepoFile[]> {
    if (!this.head) return [];
    const { maxBytes, maxFiles } = gitSettings();
    const { stdout } = await this.run(['ls-tree', '-r', '-z', '--long', 'HEAD', ...(folder ? ['--', folder] : [])]);
    const entries = stdout
      .toString('utf8')
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const [meta, path] = line.split('\t') as [string, string];
        const [mode, type, , size] = meta.split(/\s+/);
        return { mode, type, size: Number(size), path };
      })
      .filter((e) => e.type === 'blob' && e.mode !== '120000');
    if (entries.length > maxFiles)
      throw new GitError(
        `the repository has ${entries.length} files, more than the ${maxFiles} Lectern reads (LECTERN_GIT_MAX_FILES)`,
        'too-large',
      );
    const total = entries.reduce((sum, e) => sum + e.size, 0);
    if (total > maxBytes)
      throw new GitError(
        `the repository's files take ${total} bytes, more than the ${maxBytes} Lectern reads (LECTERN_GIT_MAX_BYTES)`,
        'too-large',
      );
    return Promise.all(entries.map(async (e) => ({ path: e.path, data: new Uint8Array(await readFile(join(this.dir, e.path))) })));
  }

  /** Writes `files` (paths from the top) and deletes `remove`; stages all of it. */
  async replace(files: RepoFile[], remove: string[]): Promise<void> {
    const keep = new Set(files.map((f) => f.path));
    for (const path of remove) if (!keep.has(path)) await unlink(join(this.dir, path)).catch(() => undefined);
    for (const file of files) {
      const target = join(this.dir, file.path);
      if (posix.normalize(file.path).startsWith('..') || file.path.split('/').includes('.git'))
        throw new GitError(`refusing to write ${file.path}`, 'refused');
      await mkdir(join(target, '..'), { recursive: true });
      await writeFile(target, file.data);
    }
    await this.run(['add', '-A', '--', '.']);
  }

  /** Commits what is staged (null when nothing changed), authored by `author`, committed by Lectern. */
  async commit(message: string, author: { name: string; email: string }): Promise<string | null> {
    const status = (await this.run(['status', '--porcelain'])).stdout.toString().trim();
    if (!status) return null;
    await this.run(['commit', '-q', '--no-verify', '-m', message], {
      GIT_AUTHOR_NAME: author.name || 'Lectern user',
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: 'Lectern',
      GIT_COMMITTER_EMAIL: 'lectern@localhost',
    });
    return (await this.run(['rev-parse', 'HEAD'])).stdout.toString().trim();
  }

  /** Pushes HEAD to the branch; a GitError('rejected') when the branch moved meanwhile. */
  async push(): Promise<void> {
    await this.run(['push', '-q', '--', this.remote.url, `HEAD:${this.ref}`]);
    this.head = (await this.run(['rev-parse', 'HEAD'])).stdout.toString().trim();
  }

  async close(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
    if (this.sshDir) await rm(this.sshDir, { recursive: true, force: true });
  }
}
