import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createContext, type AppContext } from './context.js';
import { AppError } from './errors.js';
import { createKeyForEmail, createKeyForUser, createOwner, setPlan } from './domain/users.js';
import { acceptInvite } from './domain/team/invites.js';
import { setPasswordByEmail } from './domain/team/sessions.js';
import { dbExists, describeDb, openDb } from './store/db.js';
import { migrate } from './store/migrations/index.js';
import { runStandaloneSandbox } from './sandbox/standalone.js';
import { runMcpStdio } from './mcp/stdio.js';
import { withSandboxUrl } from './platforms/config.js';
import { listAllUsers, listTenantUsers, type UserRow } from './store/users.js';

/**
 * `herald <group> <command> [options]`: admin commands. They read the same configuration as the
 * server (DATA_DIR, DATABASE_URL, ...; the default DATA_DIR is Herald's own `data` folder, see config.ts)
 * and work while it runs. They refuse to start a new database unless given --init: one made by mistake
 * (DATA_DIR unset in this shell) would hold users the running server never sees. Output for machines with
 * --json: exactly one JSON object on stdout; everything else goes to stderr.
 */
type Values = Record<string, string | boolean | undefined>;
interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  run(ctx: AppContext, values: Values, positionals: string[]): Promise<unknown>;
  /** Runs without a context (e.g. migrate opens the database itself). */
  bare?: (values: Values) => Promise<unknown>;
  /** The result for people (without --json), when `key: value` lines do not suit it. */
  format?: (result: unknown) => string;
}

const list = (v: unknown) =>
  typeof v === 'string' && v.trim()
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

const commands: Record<string, Command> = {
  sandbox: {
    usage:
      'herald sandbox [--port P] [--host H] [--public-url URL]   (every platform simulator; point Herald at it with SANDBOX_URL)',
    options: { port: { type: 'string' }, host: { type: 'string' }, 'public-url': { type: 'string' } },
    run: async () => undefined,
    async bare(v) {
      const port = v.port === undefined ? 4100 : Number(v.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError('--port must be an integer from 0 to 65535');
      // --public-url: the address the simulators put in what they hand out (a Bluesky DID document's PDS,
      // upload URLs), when Herald reaches them through something in front (a proxy).
      const publicUrl =
        typeof v['public-url'] === 'string' ? (v['public-url'] as string).replace(/\/+$/, '') : undefined;
      await runStandaloneSandbox({ host: (v.host as string | undefined) ?? '127.0.0.1', port, publicUrl });
      return undefined;
    },
  },
  mcp: {
    usage: 'herald mcp   (the MCP server on stdio, acting with the API key in HERALD_API_KEY; see docs/mcp.md)',
    options: {},
    run: async () => undefined,
    async bare() {
      let config = loadConfig();
      // Beside a server run with SANDBOX=1, reach the simulators that server started (inbox replies call
      // the platforms from this process).
      if (config.sandbox && !config.env.SANDBOX_URL)
        config = withSandboxUrl(config, `http://${config.host}:${config.sandboxPort}`);
      const db = await openCliDb(config, false);
      const ctx = await createContext(config, { log: pino({ level: 'warn' }, pino.destination(2)), db });
      try {
        await runMcpStdio(ctx, config.mcpApiKey);
      } finally {
        await ctx.close();
      }
      return undefined;
    },
  },
  'users create': {
    usage:
      'herald users create --email E --plan free|build|accelerate|unlimited [--addons analytics,inbox] [--name N] [--json]',
    options: {
      email: { type: 'string' },
      plan: { type: 'string' },
      addons: { type: 'string' },
      name: { type: 'string' },
    },
    async run(ctx, v) {
      if (!v.email || !v.plan) throw new UsageError('--email and --plan are required');
      const { user, apiKey } = await createOwner(
        ctx.db,
        { email: String(v.email), plan: String(v.plan), addons: list(v.addons), name: (v.name as string) ?? null },
        ctx.clock.now(),
      );
      return { userId: user.user_id, apiKey };
    },
  },
  'users set-plan': {
    usage: 'herald users set-plan --user USER_ID --plan P [--addons analytics,inbox] [--json]',
    options: { user: { type: 'string' }, plan: { type: 'string' }, addons: { type: 'string' } },
    async run(ctx, v) {
      if (!v.user || !v.plan) throw new UsageError('--user and --plan are required');
      const addons = v.addons === undefined ? undefined : (list(v.addons) ?? []);
      const user = await setPlan(ctx.db, String(v.user), String(v.plan), addons, ctx.clock.now());
      return { userId: user.user_id, plan: user.plan, addons: JSON.parse(user.addons) };
    },
  },
  'users list': {
    usage:
      "herald users list [--tenant TENANT_ID] [--json]   (every user, or one tenant's; a tenant's id is its owner's)",
    options: { tenant: { type: 'string' } },
    async run(ctx, v) {
      const users = v.tenant
        ? await listTenantUsers(ctx.db.kysely, String(v.tenant))
        : await listAllUsers(ctx.db.kysely);
      return { users: users.map(presentUser) };
    },
    format: (result) => {
      const { users } = result as { users: ReturnType<typeof presentUser>[] };
      if (!users.length) return 'no users\n';
      const rows = [
        ['USER_ID', 'TENANT_ID', 'ROLE', 'PLAN', 'EMAIL'],
        ...users.map((u) => [u.userId, u.tenantId, u.role, u.plan, u.email]),
      ];
      const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
      return (
        rows
          .map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '))
          .join('\n') + '\n'
      );
    },
  },
  'users set-password': {
    usage:
      'herald users set-password --email E [--json]   (reads the password from stdin, or asks for it without echo; never from the command line)',
    options: { email: { type: 'string' } },
    async run(ctx, v) {
      if (!v.email) throw new UsageError('--email is required');
      const password = await readSecret('Password for ' + String(v.email) + ': ');
      const user = await setPasswordByEmail(ctx, String(v.email), password);
      return { userId: user.user_id, email: user.email, passwordSet: true };
    },
  },
  'keys create': {
    usage: 'herald keys create (--user USER_ID | --email E) [--name N] [--json]   (--email: a new key for a lost one)',
    options: { user: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
    async run(ctx, v) {
      if (Boolean(v.user) === Boolean(v.email)) throw new UsageError('give one of --user and --email');
      const name = String(v.name ?? 'CLI key');
      if (v.email) return createKeyForEmail(ctx.db, String(v.email), name, ctx.clock.now());
      const { apiKey, keyId } = await createKeyForUser(ctx.db, String(v.user), name, ctx.clock.now());
      return { userId: v.user, keyId, apiKey };
    },
  },
  'invites accept': {
    usage: 'herald invites accept TOKEN --email E [--name N] [--json]',
    options: { email: { type: 'string' }, name: { type: 'string' } },
    async run(ctx, v, positionals) {
      if (!positionals[0] || !v.email) throw new UsageError('TOKEN and --email are required');
      const { user, apiKey } = await acceptInvite(
        ctx.db,
        { token: positionals[0], email: String(v.email), name: (v.name as string) ?? null },
        ctx.clock.now(),
      );
      return { userId: user.user_id, tenantId: user.tenant_id, apiKey };
    },
  },
  migrate: {
    usage: 'herald migrate [--init]',
    options: {},
    run: async () => undefined,
    async bare(v) {
      const config = loadConfig();
      const db = await openCliDb(config, v.init === true);
      try {
        const applied = await migrate(db);
        return { applied };
      } finally {
        await db.close();
      }
    },
  },
};

/** Extension point for features that add commands (sandbox, invites). */
export function addCommand(name: string, command: Command): void {
  commands[name] = command;
}

class UsageError extends Error {}

const presentUser = (u: UserRow) => ({
  userId: u.user_id,
  tenantId: u.tenant_id,
  email: u.email,
  role: u.role,
  plan: u.plan,
});

/**
 * The database as the CLI opens it: without the checkpoint thread (its commands write little), and only
 * one that exists unless `init`.
 */
async function openCliDb(config: Config, init: boolean) {
  const options = {
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    databaseSchema: config.databaseSchema,
    checkpointThread: false,
  };
  if (!init && !(await dbExists(options))) {
    throw new AppError(
      'not_found',
      'database_not_found',
      `no Herald database at ${describeDb(options)}. Run this with the server's DATA_DIR (or DATABASE_URL), or add --init to create a new database there`,
    );
  }
  return openDb(options);
}

/**
 * A secret from stdin: its first line when piped, else typed at a prompt on stderr without echo. Never an
 * argument: those show in `ps` and shell history.
 */
async function readSecret(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    let text = '';
    for await (const chunk of stdin) text += String(chunk);
    return text.split(/\r?\n/)[0] ?? '';
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (fn: () => void) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      fn();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(typed));
        if (ch === '\u0003') return done(() => reject(new UsageError('cancelled')));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}

function usage(): string {
  return (
    'usage:\n' +
    Object.values(commands)
      .map((c) => `  ${c.usage}`)
      .join('\n') +
    "\nCommands that use the database open the server's (DATA_DIR or DATABASE_URL) and refuse to create one unless given --init.\n"
  );
}

function print(result: unknown, json: boolean, format?: (result: unknown) => string): void {
  if (result === undefined) return;
  if (json) {
    process.stdout.write(JSON.stringify(result) + '\n');
    return;
  }
  if (format) {
    process.stdout.write(format(result));
    return;
  }
  for (const [k, v] of Object.entries(result as Record<string, unknown>)) {
    process.stdout.write(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const name =
    argv[1] && !argv[1].startsWith('-') && commands[`${argv[0]} ${argv[1]}`] ? `${argv[0]} ${argv[1]}` : argv[0];
  const command = name ? commands[name] : undefined;
  if (!command) {
    process.stderr.write(usage());
    return argv.length === 0 || argv[0] === '--help' || argv[0] === 'help' ? 0 : 2;
  }
  const rest = argv.slice(name!.split(' ').length);
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: 'boolean' }, init: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    process.stderr.write(`herald: ${(error as Error).message}\n${command.usage}\n`);
    return 2;
  }
  const json = parsed.values.json === true;
  let ctx: AppContext | null = null;
  try {
    let result: unknown;
    if (command.bare) {
      result = await command.bare(parsed.values);
    } else {
      const config = loadConfig();
      const db = await openCliDb(config, parsed.values.init === true);
      ctx = await createContext(config, { log: pino({ level: 'warn' }, pino.destination(2)), db });
      result = await command.run(ctx, parsed.values, parsed.positionals);
    }
    print(result, json, command.format);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`herald: ${error.message}\n${command.usage}\n`);
      return 2;
    }
    if (error instanceof AppError || error instanceof ConfigError) {
      const body =
        error instanceof AppError
          ? { error: error.message, code: error.code }
          : { error: error.message, code: 'invalid_configuration' };
      if (json) process.stdout.write(JSON.stringify(body) + '\n');
      process.stderr.write(`herald: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await ctx?.close();
  }
}

runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`herald: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
