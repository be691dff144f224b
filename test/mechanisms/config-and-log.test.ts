import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { openAPIFetchSettings } from '../../src/modules/openapi/fetch.js';
import { allowPrivateNetwork } from '../../src/outbound/index.js';
import { createLogger, requestIdOf, tagRequest } from '../../src/ops/log.js';

/**
 * The environment is read in one place (src/config.ts, and the CLI's own start-up checks) and
 * everything is logged through one logger (src/ops/log.ts): a file elsewhere in src/ that reads
 * process.env or calls console.* is named here.
 */
const SRC = path.resolve(import.meta.dirname, '../../src');
const ENV = /\bprocess\.env\b/;
const CONSOLE = /\bconsole\.(log|info|warn|error|debug|trace)\s*\(/;

function filesUnder(root: string): string[] {
  return fs
    .readdirSync(root, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|js|mjs)$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => !path.relative(root, f).startsWith(`generated${path.sep}`));
}

/** The files of `root` (src/generated aside) where `pattern` occurs, as paths relative to root, except `allowed`. */
function offenders(root: string, pattern: RegExp, allowed: string[]): string[] {
  return filesUnder(root)
    .filter((f) => !allowed.includes(path.relative(root, f)))
    .filter((f) => pattern.test(fs.readFileSync(f, 'utf8')))
    .map((f) => path.relative(root, f))
    .sort();
}

const sample = fs.mkdtempSync(path.join(os.tmpdir(), 'config-and-log-'));
afterAll(() => fs.rmSync(sample, { recursive: true, force: true }));

describe('one config, one logger', () => {
  it('the scan names a planted reader of process.env and a planted console call, and spares the allowed files', () => {
    fs.mkdirSync(path.join(sample, 'modules/a'), { recursive: true });
    fs.mkdirSync(path.join(sample, 'generated'), { recursive: true });
    fs.writeFileSync(path.join(sample, 'config.ts'), 'export const port = process.env.PORT;\n');
    fs.writeFileSync(path.join(sample, 'cli.ts'), 'console.log(process.env.HOME);\n');
    fs.writeFileSync(path.join(sample, 'generated/schema.ts'), 'console.log(1);\n');
    fs.writeFileSync(path.join(sample, 'modules/a/service.ts'), 'const x = process.env.LECTERN_X;\nconsole.error("failed", x);\n');
    expect(offenders(sample, ENV, ['config.ts', 'cli.ts'])).toEqual([path.join('modules', 'a', 'service.ts')]);
    expect(offenders(sample, CONSOLE, ['cli.ts'])).toEqual([path.join('modules', 'a', 'service.ts')]);
  });

  it('process.env is read only in src/config.ts and src/cli.ts', () => {
    expect(filesUnder(SRC).length).toBeGreaterThan(50);
    expect(offenders(SRC, ENV, ['config.ts', 'cli.ts'])).toEqual([]);
  });

  it('no console.* in src/ outside the CLI', () => {
    expect(offenders(SRC, CONSOLE, ['cli.ts'])).toEqual([]);
  });
});

describe('the private-network switch', () => {
  it('is one boolean, either name truthy by the same rule, heeded alike by OpenAPI fetches and Git', () => {
    const cases: [Record<string, string>, boolean][] = [
      [{}, false],
      [{ LECTERN_ALLOW_PRIVATE_NETWORK: '1' }, true],
      [{ LECTERN_ALLOW_PRIVATE_NETWORK: 'TRUE' }, true],
      [{ LECTERN_OPENAPI_ALLOW_PRIVATE: 'yes' }, true],
      [{ LECTERN_ALLOW_PRIVATE_NETWORK: '0', LECTERN_OPENAPI_ALLOW_PRIVATE: '1' }, true],
      [{ LECTERN_ALLOW_PRIVATE_NETWORK: '0', LECTERN_OPENAPI_ALLOW_PRIVATE: 'no' }, false],
    ];
    for (const [env, allowed] of cases) {
      const settings = readConfig(env);
      expect(settings.allowPrivateNetwork, JSON.stringify(env)).toBe(allowed);
      expect(openAPIFetchSettings(settings).allowPrivate, JSON.stringify(env)).toBe(allowed);
      expect(allowPrivateNetwork(settings), JSON.stringify(env)).toBe(allowed);
    }
  });

  it('the settings are part of the config, with their defaults', () => {
    const config = readConfig({ LECTERN_GIT_LOCK_WAIT_MS: '0' });
    expect(config.git.lockWaitMs).toBe(0);
    expect(config.imports.uploadMaxBytes).toBe(64 * 1024 * 1024);
    expect(config.openapi.maxBytes).toBe(10 * 1024 * 1024);
    expect(config.readerCacheMb).toBe(128);
    expect(() => readConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT must be json or text/);
  });
});

describe('the logger', () => {
  it('logs a fault with its stack, and with the id of the request it was met in', () => {
    const lines: string[] = [];
    const log = createLogger(
      'json',
      () => {},
      (l) => lines.push(l),
      false,
    );
    log.fault('outside');
    const request = new Request('http://lectern.test/v1/user');
    tagRequest(request, 'req-42');
    log.fault('REST operation failed', new Error('boom'), { requestId: requestIdOf(request) });
    const [outside, inside] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(outside).toMatchObject({ level: 'error', msg: 'outside' });
    expect(outside).not.toHaveProperty('requestId');
    expect(inside).toMatchObject({ level: 'error', msg: 'REST operation failed: boom', requestId: 'req-42' });
    expect(String(inside!.stack)).toMatch(/Error: boom/);
  });
});
