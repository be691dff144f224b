import { parseArgs } from 'node:util';
import { issueToken } from './auth/tokens.js';
import { readConfig } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { rebuildSearchIndex } from './modules/content/index.js';
import { createOrganization } from './modules/orgs/index.js';
import { createUser } from './modules/users/index.js';
import { startServer } from './server.js';

const USAGE = `lectern — self-hostable documentation platform API

  lectern serve                                  serve HTTP (PORT, HOST, DATABASE_URL, LECTERN_DATA_DIR)
  lectern migrate                                apply pending database migrations
  lectern user create --email E --name N [--org-title T]
  lectern token create --user USER_ID
  lectern org create --title T --owner USER_ID
  lectern reindex [--space SPACE_ID]             rebuild the search index (all live spaces, or one)
`;

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

/** Runs a command on the configured database (attaching to a running embedded server if there is one). */
async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const config = readConfig();
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, role: 'cli' });
  try {
    await migrate(db.pool);
    return await fn(db);
  } finally {
    await db.close();
  }
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || !value) throw new Error(`--${name} is required`);
  return value;
}

async function main(argv: string[]) {
  const [command, sub, ...rest] = argv;
  const { values } = parseArgs({
    args: sub && !sub.startsWith('--') ? rest : argv.slice(1),
    options: { space: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' }, 'org-title': { type: 'string' }, user: { type: 'string' }, title: { type: 'string' }, owner: { type: 'string' } },
    strict: true,
  });

  switch (`${command} ${sub && !sub.startsWith('--') ? sub : ''}`.trim()) {
    case 'serve': {
      const config = readConfig();
      // Our handlers go in before anything starts; the shutdown stops the database itself after
      // the HTTP server has drained. A signal during start-up waits for the start.
      const starting = startServer(config, { log: (line) => console.log(line) });
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        console.log(`${signal}: finishing in-flight requests, then stopping`);
        starting
          .then((server) => server.close())
          .then(() => process.exit(0), (e) => (console.error(e), process.exit(1)));
      };
      process.on('SIGTERM', () => stop('SIGTERM'));
      process.on('SIGINT', () => stop('SIGINT'));
      const server = await starting;
      console.log(`Lectern listening on ${server.url} (REST ${server.url}/v1, GraphQL ${server.url}/graphql)`);
      return;
    }
    case 'migrate':
      return withDatabase(async (db) => print(await migrate(db.pool)));
    case 'user create':
      return withDatabase(async (db) => {
        const user = await createUser(db.prisma, { email: required(values, 'email'), name: required(values, 'name') });
        const token = await issueToken(db.prisma, user.id, 'cli');
        const orgTitle = values['org-title'];
        const organization = typeof orgTitle === 'string' ? await createOrganization(db.prisma, { title: orgTitle, ownerId: user.id }) : undefined;
        print({ user, token, ...(organization ? { organization } : {}) });
      });
    case 'token create':
      return withDatabase(async (db) => print({ token: await issueToken(db.prisma, required(values, 'user'), 'cli') }));
    case 'org create':
      return withDatabase(async (db) => print(await createOrganization(db.prisma, { title: required(values, 'title'), ownerId: required(values, 'owner') })));
    case 'reindex':
      return withDatabase(async (db) => {
        const where = typeof values.space === 'string' ? { id: values.space } : { deletedAt: null };
        const spaces = await db.prisma.space.findMany({ where, select: { id: true, revisionId: true } });
        if (typeof values.space === 'string' && !spaces.length) throw new Error(`no space ${values.space}`);
        for (const space of spaces) {
          // One transaction per space: a large space takes a while, others are not held up.
          await db.prisma.$transaction((tx) => rebuildSearchIndex(tx, space.id, space.revisionId), { timeout: 10 * 60_000 });
        }
        print({ reindexed: spaces.length });
      });
    default:
      process.stderr.write(USAGE);
      process.exitCode = command ? 2 : 0;
  }
}

main(process.argv.slice(2)).catch((error: Error) => {
  console.error(`lectern: ${error.message}`);
  process.exit(1);
});
