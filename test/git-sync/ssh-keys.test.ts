/**
 * Deploy keys are usable every time: ssh2 can read back every key Lectern generates (about one
 * ed25519 key in 256 that ssh2 generates, it cannot), and its public line is the key's own.
 */
import ssh2 from 'ssh2';
import { describe, expect, it } from 'vitest';
import { generateDeployKey } from '../../src/modules/git-sync/ssh-keys.js';

describe('generateDeployKey', () => {
  it('makes 1,000 keys in a row that ssh2 reads back, each with its own public line', () => {
    const publicLines = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const key = generateDeployKey('lectern-space-test');
      const parsed = ssh2.utils.parseKey(key.privateKey);
      expect(parsed instanceof Error ? parsed.message : 'read').toBe('read');
      const pub = parsed as ssh2.ParsedKey;
      expect(key.publicKey).toBe(`ssh-ed25519 ${pub.getPublicSSH().toString('base64')} lectern-space-test`);
      expect(key.privateKey.endsWith('\n')).toBe(true);
      publicLines.add(key.publicKey);
    }
    expect(publicLines.size).toBe(1000);
  }, 120_000);
});
