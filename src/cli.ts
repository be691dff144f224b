// The `lectern` command. Only Node built-ins are imported up front: `--help`, `--version` and usage
// errors answer before the server, Prisma or GraphQL load (each command imports what it needs).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Database } from './db/database.js';

type Values = Record<string, string | boolean | undefined>;
interface Command {
  usage: string;
  summary: string;
  /** Longer help: options and what is printed. */
  details?: string;
  options?: Record<string, { type: 'string' | 'boolean'; short?: string }>;
  /** Positional arguments: their names (required, or optional when written `[NAME]`). */
  positionals?: string[];
  run(values: Values, positionals: string[]): Promise<void>;
}

/** A mistake in how the command was called: exit 2 with the command's usage. */
class UsageError extends Error {}

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
const version = () =>
  (JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../package.json'), 'utf8')) as { version: string }).version;

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || !value.trim()) throw new UsageError(`--${name} is required`);
  return value.trim();
}

/** Runs a command on the configured database (attaching to a running embedded server if there is one). */
async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const [{ readConfig }, { openDatabase }, { migrate }] = await Promise.all([
    import('./config.js'),
    import('./db/database.js'),
    import('./db/migrate.js'),
  ]);
  const config = readConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, role: 'cli' });
  try {
    await migrate(db.pool);
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** --user (an id) or --email: exactly one (checked before the database is opened). */
function who(values: Values, idOption = '--user') {
  const id = typeof values.user === 'string' ? values.user.trim() : undefined;
  const email = typeof values.email === 'string' ? values.email.trim().toLowerCase() : undefined;
  if (!id === !email) throw new UsageError(`give exactly one of ${idOption} USER_ID or --email EMAIL`);
  return { id, email };
}

/** The user named by --user or --email; a clear error when there is none. */
async function findUser(db: Database, values: Values) {
  const { id, email } = who(values);
  const user = await db.prisma.user.findUnique({ where: id ? { id } : { email } });
  if (!user)
    throw new Error(
      id ? `no user with id ${id} (lectern user list shows them)` : `no user with email ${email} (lectern user list shows them)`,
    );
  return user;
}

const userJson = (u: { id: string; email: string; displayName: string; createdAt: Date }) => ({
  id: u.id,
  email: u.email,
  name: u.displayName,
  createdAt: u.createdAt,
});
const tokenJson = (t: { id: string; label: string | null; createdAt: Date; expiresAt: Date | null; ssoOrganizationId: string | null }) => ({
  id: t.id,
  label: t.label,
  createdAt: t.createdAt,
  ...(t.expiresAt ? { expiresAt: t.expiresAt } : {}),
  ...(t.ssoOrganizationId ? { ssoOrganizationId: t.ssoOrganizationId } : {}),
});
const WHO = { user: { type: 'string' }, email: { type: 'string' } } as const;

/**
 * The password piped to --password-stdin (all of stdin, one trailing newline removed): never an
 * argument, which other users of the machine could read in the process list. Checked before the
 * database is opened.
 */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new UsageError('--password-stdin reads the password from standard input: pipe it in (e.g. printf %s "$PASSWORD" | lectern …)');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!password) throw new UsageError('--password-stdin: standard input is empty');
  const { checkPassword } = await import('./modules/sessions/index.js');
  try {
    return checkPassword('password', password);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: 'lectern serve',
    summary: 'serve HTTP (PORT, HOST, DATABASE_URL, LECTERN_DATA_DIR, LOG_FORMAT)',
    details: `Binds PORT (default 8080) on HOST (default 127.0.0.1; 0.0.0.0 for every interface), then opens
the database — DATABASE_URL, or the embedded PostgreSQL in LECTERN_DATA_DIR (default ./data) — and
applies pending migrations. SIGTERM/SIGINT finish in-flight requests, then stop.`,
    run: serve,
  },
  migrate: {
    usage: 'lectern migrate',
    summary: 'apply pending database migrations',
    run: () => withDatabase(async (db) => void print(await (await import('./db/migrate.js')).migrate(db.pool))),
  },
  'user create': {
    usage: 'lectern user create --email E --name N [--org-title T] [--password-stdin]',
    summary: 'create a user, an API token and optionally an organization it administers',
    details:
      'All or nothing (one transaction). Prints the user, the organization and the token: the token is shown only this once.\n--password-stdin: the password to sign in to the app with, read from standard input (at least 8 characters).',
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      'org-title': { type: 'string' },
      'password-stdin': { type: 'boolean' },
    },
    run: async (values) => {
      required(values, 'email');
      required(values, 'name');
      const password = values['password-stdin'] ? await passwordFromStdin() : undefined;
      return withDatabase(async (db) => {
        const [{ createUser }, check, { newId }, { issueToken }, { hashPassword }] = await Promise.all([
          import('./modules/users/index.js'),
          import('./validate.js'),
          import('./ids.js'),
          import('./auth/tokens.js'),
          import('./modules/sessions/index.js'),
        ]);
        const passwordHash = password === undefined ? undefined : await hashPassword(password);
        const orgTitle =
          typeof values['org-title'] === 'string' ? check.text('--org-title', values['org-title'].trim(), { min: 2, max: 255 }) : undefined;
        const input = { email: required(values, 'email'), name: required(values, 'name') };
        const created = await db.prisma.$transaction(async (tx) => {
          const client = tx as unknown as typeof db.prisma;
          const user = await createUser(client, input);
          const organization = orgTitle
            ? await tx.organization.create({ data: { id: newId(), title: orgTitle, emailDomains: [] } })
            : undefined;
          if (organization) await tx.member.create({ data: { organizationId: organization.id, userId: user.id, role: 'admin' } });
          if (passwordHash) await tx.userPassword.create({ data: { userId: user.id, hash: passwordHash } });
          const token = await issueToken(client, user.id, 'cli');
          return { user, token, organization };
        });
        print({ user: created.user, token: created.token, ...(created.organization ? { organization: created.organization } : {}) });
      });
    },
  },
  'user password': {
    usage: 'lectern user password (--user USER_ID | --email E) --password-stdin',
    summary: "set a user's password (read from standard input); their browser sessions end",
    options: { ...WHO, 'password-stdin': { type: 'boolean' } },
    run: async (values) => {
      who(values);
      if (!values['password-stdin'])
        throw new UsageError('--password-stdin is required (the password is read from standard input, never from an argument)');
      const password = await passwordFromStdin();
      return withDatabase(async (db) => {
        const user = await findUser(db, values);
        const { setPassword } = await import('./modules/sessions/index.js');
        const sessionsEnded = await setPassword({ db }, user.id, password);
        print({ user: userJson(user), password: 'set', sessionsEnded });
      });
    },
  },
  'user list': {
    usage: 'lectern user list',
    summary: 'list users (id, email, name, organizations)',
    run: () =>
      withDatabase(async (db) => {
        const users = await db.prisma.user.findMany({
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          include: { memberships: { select: { organizationId: true, role: true } } },
        });
        print(users.map((u) => ({ ...userJson(u), organizations: u.memberships.map((m) => ({ id: m.organizationId, role: m.role })) })));
      }),
  },
  'user show': {
    usage: 'lectern user show (--user USER_ID | --email E)',
    summary: "a user, its organizations and its tokens (never the tokens' secrets)",
    options: WHO,
    run: (values) => (
      who(values),
      withDatabase(async (db) => {
        const user = await findUser(db, values);
        const [memberships, tokens] = await Promise.all([
          db.prisma.member.findMany({ where: { userId: user.id }, include: { organization: { select: { title: true } } } }),
          db.prisma.apiToken.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } }),
        ]);
        print({
          ...userJson(user),
          organizations: memberships.map((m) => ({ id: m.organizationId, title: m.organization.title, role: m.role })),
          tokens: tokens.map(tokenJson),
        });
      })
    ),
  },
  'token create': {
    usage: 'lectern token create (--user USER_ID | --email E) [--label L]',
    summary: 'issue an API token (printed only this once)',
    options: { ...WHO, label: { type: 'string' } },
    run: (values) => (
      who(values),
      withDatabase(async (db) => {
        const user = await findUser(db, values);
        const { issueToken } = await import('./auth/tokens.js');
        print({
          user: userJson(user),
          token: await issueToken(db.prisma, user.id, typeof values.label === 'string' ? values.label : 'cli'),
        });
      })
    ),
  },
  'token list': {
    usage: 'lectern token list (--user USER_ID | --email E)',
    summary: "a user's tokens: id, label, dates (the secrets are not stored)",
    options: WHO,
    run: (values) => (
      who(values),
      withDatabase(async (db) => {
        const user = await findUser(db, values);
        print((await db.prisma.apiToken.findMany({ where: { userId: user.id }, orderBy: { createdAt: 'asc' } })).map(tokenJson));
      })
    ),
  },
  'token revoke': {
    usage: 'lectern token revoke --id TOKEN_ID',
    summary: 'revoke a token (its id from token list)',
    options: { id: { type: 'string' } },
    run: (values) => {
      const id = required(values, 'id');
      return withDatabase(async (db) => {
        const { count } = await db.prisma.apiToken.deleteMany({ where: { id } });
        if (!count) throw new Error(`no token with id ${id} (lectern token list --email E shows a user's tokens)`);
        print({ revoked: id });
      });
    },
  },
  'org create': {
    usage: 'lectern org create --title T (--owner USER_ID | --email E)',
    summary: 'create an organization administered by a user',
    options: { title: { type: 'string' }, owner: { type: 'string' }, email: { type: 'string' } },
    run: (values) => (
      required(values, 'title'),
      who({ user: values.owner, email: values.email }, '--owner'),
      withDatabase(async (db) => {
        const user = await findUser(db, { user: values.owner, email: values.email });
        const { createOrganization } = await import('./modules/orgs/index.js');
        print(await createOrganization(db.prisma, { title: required(values, 'title'), ownerId: user.id }));
      })
    ),
  },
  reindex: {
    usage: 'lectern reindex [--space SPACE_ID]',
    summary: 'rebuild the search index (all live spaces, or one)',
    options: { space: { type: 'string' } },
    run: (values) =>
      withDatabase(async (db) => {
        const { rebuildSearchIndex } = await import('./modules/content/index.js');
        const where = typeof values.space === 'string' ? { id: values.space } : { deletedAt: null };
        const spaces = await db.prisma.space.findMany({ where, select: { id: true, revisionId: true } });
        if (typeof values.space === 'string' && !spaces.length) throw new Error(`no space ${values.space}`);
        for (const space of spaces) {
          // One transaction per space: a large space takes a while, others are not held up.
          await db.prisma.$transaction((tx) => rebuildSearchIndex(tx, space.id, space.revisionId), { timeout: 10 * 60_000 });
        }
        print({ reindexed: spaces.length });
      }),
  },
  repair: {
    usage: 'lectern repair',
    summary: 're-attach pages left outside the tree (a missing parent, a ring) in every space',
    details:
      'Only data written before merges settled the tree can hold such pages. Each is put at the top level in a new revision of main or of the open change request that has it; nothing is deleted. Prints what it repaired.',
    run: () =>
      withDatabase(async (db) => {
        const { repairSpaces } = await import('./modules/content/index.js');
        print({ repaired: await repairSpaces(db.prisma) });
      }),
  },
  backup: {
    usage: 'lectern backup [FILE]',
    summary: 'write every table to FILE (a consistent snapshot; no pg_dump needed; - for stdout)',
    details: `Works on the embedded database (while a server runs, too) and on DATABASE_URL. Gzipped when FILE ends in .gz.
FILE defaults to LECTERN_DATA_DIR/backups/lectern-<UTC date and time>.jsonl.gz (./data/backups/… by default):
inside the data directory, which a clone's .gitignore leaves out, never loose in the working tree.`,
    positionals: ['[FILE]'],
    run: async (_values, [file]) => {
      const target = file ?? (await defaultBackupFile());
      return withDatabase(async (db) => {
        const { backup } = await import('./ops/backup.js');
        const summary = await backup(db.pool, target);
        if (target !== '-') print(summary);
      });
    },
  },
  export: {
    usage: 'lectern export --space SPACE_ID [--out FILE]',
    summary: "write a space's content as a .zip of Markdown in the Git layout (portable; imports back)",
    details: `README.md, SUMMARY.md, one Markdown file per page (front matter, relative links) and .gitbook/assets/:
the files Git Sync would commit. FILE defaults to ./space-<SPACE_ID>.zip. Prints the file's path.`,
    options: { space: { type: 'string' }, out: { type: 'string' } },
    run: (values) => {
      const space = required(values, 'space');
      const out = path.resolve(
        typeof values.out === 'string' && values.out.trim() ? values.out.trim() : `space-${space.replace(/[^\w-]+/g, '_')}.zip`,
      );
      return withDatabase(async (db) => {
        const { exportSpaceArchive } = await import('./modules/imports/index.js');
        const archive = await exportSpaceArchive(db.prisma, space);
        // Written next to its place, then renamed: never a half-written archive at FILE.
        const partial = `${out}.${process.pid}.partial`;
        await fs.promises.writeFile(partial, archive.zip);
        await fs.promises.rename(partial, out);
        process.stdout.write(`${out}\n`);
      });
    },
  },
  restore: {
    usage: 'lectern restore FILE',
    summary: 'load a backup into an empty database (a fresh data directory or database)',
    details: 'Refuses a database that already holds users or organizations. One transaction: all or nothing.',
    positionals: ['FILE'],
    run: (_values, [file]) =>
      withDatabase(async (db) => {
        const { restore } = await import('./ops/backup.js');
        print(await restore(db.pool, file!));
      }),
  },
};

/** Where `lectern backup` writes without a FILE: a new dated file under the data directory's backups/. */
async function defaultBackupFile(): Promise<string> {
  const { readConfig } = await import('./config.js');
  const dir = path.join(readConfig().dataDir, 'backups');
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return path.join(dir, `lectern-${stamp}.jsonl.gz`);
}

function usage(): string {
  const width = Math.max(...Object.values(COMMANDS).map((c) => c.usage.length)) + 2;
  return `lectern ${version()} — self-hostable documentation platform API

Usage:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage.padEnd(width)}${c.summary}`)
  .join('\n')}
  lectern --version
  lectern <command> --help   (or lectern help <command>)   help on one command

Settings come from the environment: PORT, HOST, DATABASE_URL, LECTERN_DATA_DIR, LOG_FORMAT, ... (see docs/running.md).
`;
}

const commandHelp = (c: Command) => `Usage: ${c.usage}\n\n${c.summary}${c.details ? `\n\n${c.details}` : ''}\n`;

async function serve() {
  const started = performance.now();
  const [{ readConfig }, { startServer }, { processLog }, { applyHeapGrowth }] = await Promise.all([
    import('./config.js'),
    import('./server.js'),
    import('./ops/log.js'),
    import('./ops/heap.js'),
  ]);
  const config = readConfig();
  applyHeapGrowth(config.heapGrowthPercent);
  const logger = processLog();
  // Our handlers go in before anything starts; the shutdown stops the database itself after the
  // HTTP server has drained. A signal during start-up waits for the start (which cleans up).
  const starting = startServer(config, { log: logger.line, logger });
  let stopping = false;
  const stop = (why: string) => {
    if (stopping) return;
    stopping = true;
    logger.line(`${why}: finishing in-flight requests, then stopping`);
    starting
      .then((server) => server.close())
      .then(
        () => process.exit(0),
        (e) => (logger.error(e), process.exit(1)),
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Under `npm start`, a supervisor stops npm: when npm goes away (even SIGKILLed), so does the server.
  if (process.env.npm_lifecycle_event && process.ppid > 1) {
    const parent = process.ppid;
    setInterval(() => process.ppid !== parent && stop('npm (the parent process) exited'), 500).unref();
  }
  const server = await starting;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  logger.line(
    `Lectern listening on ${server.url} (started in ${seconds} s) — open ${server.url}/ for first steps; REST ${server.url}/v1, GraphQL ${server.url}/graphql`,
  );
  logger.line(
    'Next: create a user, an organization and a token: lectern user create --email you@example.com --name You --org-title "My docs"',
  );
}

async function main(argv: string[]): Promise<number> {
  if (!argv.length || ['--help', '-h', 'help'].includes(argv[0]!)) {
    // `lectern help user create` is `lectern user create --help`.
    const topic = argv.slice(1).join(' ');
    if (argv[0] === 'help' && topic) return main([...argv.slice(1), '--help']);
    process.stdout.write(usage());
    return 0;
  }
  if (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version') {
    process.stdout.write(`lectern ${version()} (Node ${process.versions.node})\n`);
    return 0;
  }
  const two = `${argv[0]} ${argv[1] ?? ''}`;
  const name = COMMANDS[two] ? two : COMMANDS[argv[0]!] ? argv[0]! : null;
  if (!name) {
    const group = Object.keys(COMMANDS).filter((key) => key.startsWith(`${argv[0]} `));
    if (group.length && (!argv[1] || argv[1].startsWith('-'))) {
      // `lectern user` / `lectern user --help`: the group's commands.
      const help = argv.includes('--help') || argv.includes('-h');
      (help ? process.stdout : process.stderr).write(
        `Usage:\n${group.map((key) => `  ${COMMANDS[key]!.usage}\n      ${COMMANDS[key]!.summary}`).join('\n')}\n`,
      );
      return help ? 0 : 2;
    }
    const what = group.length ? `${argv[0]} ${argv[1]}` : argv[0];
    process.stderr.write(`lectern: unknown command "${what}"; run \`lectern --help\` for the list of commands\n`);
    return 2;
  }
  const command = COMMANDS[name]!;
  const args = argv.slice(name.split(' ').length);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args, options: command.options ?? {}, allowPositionals: !!command.positionals, strict: true }) as typeof parsed;
    const expected = command.positionals ?? [];
    const required = expected.filter((name) => !name.startsWith('['));
    if (parsed.positionals.length < required.length || parsed.positionals.length > expected.length)
      throw new UsageError(`expected ${expected.join(' ') || 'no arguments'}`);
  } catch (error) {
    process.stderr.write(`lectern ${name}: ${(error as Error).message}\n\n${commandHelp(command)}`);
    return 2;
  }
  try {
    await command.run(parsed.values, parsed.positionals);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`lectern ${name}: ${error.message}\n\n${commandHelp(command)}`);
      return 2;
    }
    process.stderr.write(`lectern ${name}: ${await explain(error)}\n`);
    return 1;
  }
}

/** A failure as one line a person can act on: never a raw Prisma or driver dump. */
async function explain(error: unknown): Promise<string> {
  const e = error as { message?: string; code?: string; extensions?: { code?: string } };
  if (e?.extensions?.code) return e.message ?? String(error); // our own errors (src/errors.ts)
  const { classifyDatabaseError } = await import('./errors.js').catch(() => ({ classifyDatabaseError: () => null }));
  const failure = classifyDatabaseError(error);
  if (failure) return `${failure.message} (is the database reachable? check DATABASE_URL or LECTERN_DATA_DIR)`;
  if (typeof e?.code === 'string' && /^P\d{4}$/.test(e.code))
    return `the database refused the change (${e.code}): ${(e.message ?? '').split('\n').filter(Boolean).at(-1)}`;
  return e?.message ?? String(error);
}

// Serve keeps running; any other command exits when done (a closed pool may leave timers behind).
main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0 || process.argv[2] !== 'serve') process.exit(code);
  },
  (error: Error) => {
    process.stderr.write(`lectern: ${error.message}\n`);
    process.exit(1);
  },
);
