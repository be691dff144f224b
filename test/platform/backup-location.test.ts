import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { setupHarness } from '../support/harness.js';
import { BIN, databaseUrl, ROOT } from '../support/child-server.js';

/**
 * `lectern backup` without a FILE writes under the data directory (./data/backups by default),
 * which the project's .gitignore leaves out: run from a clone, it leaves no untracked file there.
 */
const run = promisify(execFile);
const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

describe('where lectern backup writes', () => {
  it('by default: a dated file in data/backups, ignored by git; the clone stays clean', async () => {
    const h = await setupHarness();
    // A stand-in for a clone: a git work tree with the project's .gitignore, committed.
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'lc-clone-'));
    tempDirs.push(clone);
    fs.copyFileSync(path.join(ROOT, '.gitignore'), path.join(clone, '.gitignore'));
    const git = (...args: string[]) => run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: clone });
    await git('init', '-q');
    await git('add', '.gitignore');
    await git('commit', '-q', '-m', 'clone');

    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: await databaseUrl(h) };
    delete env.LECTERN_DATA_DIR;
    const { stdout } = await run(process.execPath, [BIN, 'backup'], { cwd: clone, env });
    const summary = JSON.parse(stdout) as { file?: string };
    const written = fs.readdirSync(path.join(clone, 'data', 'backups'));
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^lectern-\d{8}-\d{6}\.jsonl\.gz$/);
    expect(fs.statSync(path.join(clone, 'data', 'backups', written[0]!)).size).toBeGreaterThan(0);
    if (summary.file) expect(path.resolve(clone, summary.file)).toBe(fs.realpathSync(path.join(clone, 'data', 'backups', written[0]!)));
    expect((await git('status', '--porcelain', '--untracked-files=all')).stdout).toBe('');
  }, 120_000);

  it('lectern backup --help names the default place', async () => {
    const { stdout } = await run(process.execPath, [BIN, 'backup', '--help']);
    expect(stdout).toContain('Usage: lectern backup [FILE]');
    expect(stdout).toContain('LECTERN_DATA_DIR/backups/');
  });
});
