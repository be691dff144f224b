import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { landingPage } from '../../src/http/landing.js';
import { BIN, ROOT } from '../support/child-server.js';

/**
 * Every `lectern <command> --option` the README, docs/ and the landing page show is a command the
 * CLI has, with options its usage names: the commands come from `lectern --help` itself.
 */
const run = promisify(execFile);

interface Usage {
  name: string;
  options: Set<string>;
}

/** `lectern --help`'s usage lines: each command's words and the options its usage names. */
async function cliCommands(): Promise<Map<string, Usage>> {
  const { stdout } = await run(process.execPath, [BIN, '--help']);
  const commands = new Map<string, Usage>();
  for (const line of stdout.split('\n')) {
    const usage = /^ {2}lectern (\S.*?)(?: {2,}|$)/.exec(line)?.[1];
    if (!usage || usage.includes('<')) continue;
    const name = /^[a-z]+(?: [a-z]+)*/.exec(usage)?.[0];
    if (!name) continue;
    commands.set(name, { name, options: new Set(usage.match(/--[a-z-]+/g) ?? []) });
  }
  return commands;
}

function docFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? docFiles(path.join(dir, e.name)) : /\.(md|sh)$/.test(e.name) ? [path.join(dir, e.name)] : []));
}

/** Each `lectern …` the text shows: the words after it up to the end of its code span, line or comment. */
function mentions(text: string): string[] {
  return [...text.matchAll(/(?<![\w./-])lectern ([a-z][^`\n<#]*)/g)].map((m) => m[1]!.trim());
}

describe('commands named in the docs', () => {
  let commands: Map<string, Usage>;
  beforeAll(async () => {
    commands = await cliCommands();
  });

  it('the CLI lists its commands (the parse of --help found them)', () => {
    expect([...commands.keys()]).toEqual(
      expect.arrayContaining(['serve', 'user create', 'user show', 'token create', 'backup', 'restore']),
    );
  });

  it('every lectern command in README.md, docs/ and the landing page exists, with options it takes', async () => {
    const sources: [string, string][] = [
      ['README.md', fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8')],
      ...docFiles(path.join(ROOT, 'docs')).map((f): [string, string] => [path.relative(ROOT, f), fs.readFileSync(f, 'utf8')]),
      ['landing page', await landingPage({ publicUrl: 'http://localhost:8080', graphiql: true }).text()],
    ];
    const wrong: string[] = [];
    let checked = 0;
    for (const [source, text] of sources) {
      for (const mention of mentions(text)) {
        const words = mention.split(/\s+/);
        const name = [words.slice(0, 2).join(' '), words[0]!].find((n) => commands.has(n));
        checked++;
        if (!name) {
          wrong.push(`${source}: lectern ${mention} (no such command)`);
          continue;
        }
        const unknown = (mention.match(/--[a-z-]+/g) ?? []).filter((o) => o !== '--help' && !commands.get(name)!.options.has(o));
        if (unknown.length) wrong.push(`${source}: lectern ${mention} (${name} takes no ${unknown.join(', ')})`);
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });
});
