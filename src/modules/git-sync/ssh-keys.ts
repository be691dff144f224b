import { createRequire } from 'node:module';
import type ssh2 from 'ssh2';

/**
 * Deploy keys and host keys of SSH remotes, through ssh2's key utilities (no ssh-keygen
 * process, no file). Only the PUBLIC half of a deploy key ever leaves the server; the private half
 * is sealed at rest (credentials.ts) and written to a 0600 file only while git runs (git.ts).
 */
// ssh2 loads with the first key made or read (a server with no SSH remote keeps none of it);
// synchronously, as these functions are.
const require = createRequire(import.meta.url);
let ssh2Utils: typeof ssh2.utils | undefined;
const keyUtils = () => (ssh2Utils ??= (require('ssh2') as typeof ssh2).utils);

export interface DeployKey {
  /** OpenSSH private key, with its final newline (ssh refuses a key file without it). Secret. */
  privateKey: string;
  /** `ssh-ed25519 AAAA… <comment>`: what the user pastes as a deploy key. */
  publicKey: string;
}

const publicLine = (key: ssh2.ParsedKey, comment: string) =>
  `${key.type} ${key.getPublicSSH().toString('base64')}${comment ? ` ${comment}` : ''}`;

/**
 * A new ed25519 key pair, its public key commented `comment` (e.g. `lectern-space-<id>`). About one
 * generated key in 256 is one ssh2 cannot read back (its OpenSSH encoder and parser disagree on some
 * keys), and git would then fail to connect with it: such a key is discarded and another made.
 */
export function generateDeployKey(comment: string): DeployKey {
  for (let attempt = 1; ; attempt++) {
    const pair = keyUtils().generateKeyPairSync('ed25519', { comment });
    const privateKey = pair.private.endsWith('\n') ? pair.private : `${pair.private}\n`;
    const parsed = keyUtils().parseKey(privateKey);
    if (!(parsed instanceof Error) && !Array.isArray(parsed)) return { privateKey, publicKey: publicLine(parsed, comment) };
    if (attempt === 16) throw new Error(`ssh2 could not read back ${attempt} generated ed25519 keys`);
  }
}

/**
 * A private key a user supplied (OpenSSH or PEM; RSA, ECDSA or ed25519; no passphrase): the key
 * with its public half, or null when it is not one Lectern can use. The message never quotes the key.
 */
export function readPrivateKey(text: string, comment: string): DeployKey | null {
  const privateKey = `${text.replace(/\r\n/g, '\n').trim()}\n`;
  const parsed = keyUtils().parseKey(privateKey);
  if (parsed instanceof Error || Array.isArray(parsed) || !parsed.isPrivateKey()) return null;
  return { privateKey, publicKey: publicLine(parsed, comment) };
}

/**
 * A host key as the user may paste it: `<type> <base64> [comment]` (a .pub file, `ssh-keyscan`'s
 * output with or without its host field, a known_hosts line). Returns `<type> <base64>`, or null.
 */
export function readHostKey(text: string): string | null {
  const words = text.trim().split(/\s+/);
  for (let i = 0; i + 1 < words.length; i++) {
    if (!/^(ssh-|ecdsa-|sk-)/.test(words[i]!) || !/^[A-Za-z0-9+/]+={0,2}$/.test(words[i + 1]!)) continue;
    const line = `${words[i]} ${words[i + 1]}`;
    const parsed = keyUtils().parseKey(line);
    if (parsed instanceof Error || Array.isArray(parsed) || parsed.isPrivateKey()) return null;
    return line;
  }
  return null;
}
