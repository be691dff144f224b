import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { resolve, sep } from 'node:path';
import ssh2 from 'ssh2';

/**
 * A real SSH server for Git on loopback (ssh2's Server): its own ed25519 host key, public-key
 * authentication that accepts only the keys `allow()`ed (signature verified), and `exec` of
 * git-upload-pack / git-receive-pack on the bare repositories below `root`, the channel piped to a
 * real `git upload-pack` / `git receive-pack`. What GitHub, GitLab or Gitea do for a deploy key.
 */
export interface SshGitServer {
  port: number;
  /** The server's public host key, `ssh-ed25519 AAAA…`. */
  hostKey: string;
  /** Accept this public key (`<type> <base64> [comment]`) from now on. */
  allow(publicKey: string): void;
  /** Every command a client ran, and every refused authentication (`denied <type> <base64>`). */
  log: string[];
  /** Called when a client runs a git command, before it is served (the test may look around). */
  onExec: ((command: string) => void) | null;
  close(): Promise<void>;
}

const { Server, utils } = ssh2;

/**
 * A new ed25519 key pair that ssh2 reads back. About one in 256 it makes is not (its public blob one
 * byte short): src/modules/git-sync/ssh-keys.ts discards those, and so does this, or a test using
 * such a key is refused at random.
 */
export function ed25519Pair(): { private: string; public: string } {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    const readable = [pair.private, pair.public].every((text) => {
      const key = utils.parseKey(text);
      return !(key instanceof Error) && !Array.isArray(key);
    });
    if (readable) return pair;
  }
}

export async function startSshGitServer(root: string): Promise<SshGitServer> {
  const host = ed25519Pair();
  const hostKey = utils.parseKey(host.private) as ssh2.ParsedKey;
  const allowed: ssh2.ParsedKey[] = [];
  const log: string[] = [];
  const base = resolve(root);
  const state: SshGitServer = {
    port: 0,
    hostKey: `${hostKey.type} ${hostKey.getPublicSSH().toString('base64')}`,
    allow: (publicKey) => {
      const key = utils.parseKey(publicKey);
      if (key instanceof Error || Array.isArray(key)) throw key;
      allowed.push(key);
    },
    log,
    onExec: null,
    close: async () => undefined,
  };
  const server = new Server({ hostKeys: [host.private] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'publickey') return ctx.reject(['publickey']);
      const key = allowed.find((k) => k.getPublicSSH().equals(ctx.key.data));
      if (!key) {
        log.push(`denied ${ctx.key.algo} ${ctx.key.data.toString('base64')}`);
        return ctx.reject(['publickey']);
      }
      // Without a signature the client only asks whether the key would do; with one, it proves it holds the private key.
      if (!ctx.signature) return ctx.accept();
      if (key.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(['publickey']);
      ctx.accept();
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        const env: Record<string, string> = {};
        session.on('env', (accept, _reject, info) => {
          if (info.key === 'GIT_PROTOCOL') env.GIT_PROTOCOL = info.val;
          accept?.();
        });
        session.on('exec', (accept, reject, info) => {
          log.push(info.command);
          const match = /^(git-upload-pack|git-receive-pack) '([^']+)'$/.exec(info.command);
          const path = match ? resolve(base, match[2]!.replace(/^\/+/, '')) : '';
          if (!match || !path.startsWith(base + sep)) return reject?.();
          state.onExec?.(info.command);
          const channel = accept();
          const child = spawn('git', [match[1]!.slice('git-'.length), path], {
            env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', ...env },
          });
          channel.pipe(child.stdin);
          child.stdout.pipe(channel, { end: false });
          child.stderr.pipe(channel.stderr, { end: false });
          child.stdin.on('error', () => undefined);
          child.on('close', (code) => {
            channel.exit(code ?? 1);
            channel.end();
          });
        });
      });
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  state.port = (server.address() as AddressInfo).port;
  state.close = () => new Promise<void>((done) => server.close(() => done()));
  return state;
}
