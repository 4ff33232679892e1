import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { IANAZone } from 'luxon';
import { parseScopes, revokeApiKey } from '../auth/api-key.service.ts';
import { loadConfig } from '../config.ts';
import { issueOwnerKey } from '../keys/index.ts';
import { openDatabase } from '../database.ts';
import { holdsEmbeddedDatabase } from '../db/embedded-ferretdb.ts';
import { logToStderr, setLogLevel } from '../logger.ts';
import { setPassword } from '../sign-in/index.ts';
import { plans, type Plan } from '../../schema/plans.ts';
import { createWorkspace, showWorkspace, updateWorkspace } from '../account/index.ts';
import { listWorkspaces } from '../workspaces/index.ts';

const usage = `Usage: npm run -s cli -- <command> (on the DATA_DIR or MONGODB_URI the service uses; prints one JSON value)
  cli workspace create --name N --plan free|starter|pro|business --email E
  cli workspace list
  cli workspace update --id ID [--plan P] [--crawl-credits N] [--agent-credits N] [--validation-credits N] [--overage on|off] [--timezone IANA_ZONE]
  cli workspace show --id ID
  cli keys create --workspace ID --name N --scopes read,write [--brand BRAND_ID]
  cli keys revoke --id ID
  cli users set-password --email E [--workspace ID]   (the password is read from standard input)`;

class UsageError extends Error {}

const options = {
  name: { type: 'string' },
  plan: { type: 'string' },
  email: { type: 'string' },
  id: { type: 'string' },
  workspace: { type: 'string' },
  scopes: { type: 'string' },
  brand: { type: 'string' },
  overage: { type: 'string' },
  timezone: { type: 'string' },
  'crawl-credits': { type: 'string' },
  'agent-credits': { type: 'string' },
  'validation-credits': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = Partial<Record<Exclude<keyof typeof options, 'help'>, string>>;

function required(flags: Flags, name: keyof Flags): string {
  const value = flags[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function plan(value: string | undefined): Plan | undefined {
  if (value === undefined) return undefined;
  if (!(plans as readonly string[]).includes(value)) throw new UsageError(`--plan must be one of ${plans.join(', ')}`);
  return value as Plan;
}

function count(flags: Flags, name: keyof Flags): number | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

function onOff(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'on' && value !== 'off') throw new UsageError('--overage must be on or off');
  return value === 'on';
}

function timezone(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!IANAZone.isValidZone(value)) throw new UsageError('--timezone must be an IANA time zone, e.g. America/New_York');
  return value;
}

/** The password from standard input (piped, or typed and ended with Ctrl-D); one trailing newline is not part of it. */
async function passwordFromStdin(): Promise<string> {
  if (process.stdin.isTTY) console.error('Password (then Enter and Ctrl-D):');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!password) throw new UsageError('users set-password reads the password from standard input, which was empty');
  return password;
}

async function run(command: string, flags: Flags): Promise<unknown> {
  switch (command) {
    case 'workspace create': {
      const email = required(flags, 'email');
      const name = required(flags, 'name');
      return createWorkspace({ name, email, plan: plan(required(flags, 'plan'))! });
    }
    case 'workspace update':
      return updateWorkspace(required(flags, 'id'), {
        plan: plan(flags.plan),
        timezone: timezone(flags.timezone),
        crawl: count(flags, 'crawl-credits'),
        agent: count(flags, 'agent-credits'),
        validation: count(flags, 'validation-credits'),
        overage: onOff(flags.overage),
      });
    case 'workspace show':
      return showWorkspace(required(flags, 'id'));
    case 'workspace list':
      return listWorkspaces();
    case 'keys create': {
      const workspaceId = required(flags, 'workspace');
      const { key, secret } = await issueOwnerKey(
        workspaceId,
        required(flags, 'name'),
        parseScopes(required(flags, 'scopes')),
        flags.brand ?? null,
      );
      return { id: key.id, apiKey: secret, scopes: key.scopes, brandId: key.brand_id };
    }
    case 'keys revoke':
      return revokeApiKey(required(flags, 'id'));
    case 'users set-password': {
      const email = required(flags, 'email');
      return { email, ...(await setPassword({ email, password: await passwordFromStdin(), workspaceId: flags.workspace })) };
    }
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

/** The database a MongoDB URI names, as `host/name`, without its credentials or options (they may hold a password). */
function databaseNamed(uri: string): string {
  const { host, pathname } = new URL(uri);
  return `${host}${pathname === '/' ? '' : pathname}`;
}

async function main() {
  const { positionals, values } = parseArgs({ args: process.argv.slice(2), options, allowPositionals: true, strict: true });
  const { help, ...flags } = values;
  if (help || positionals[0] === 'help') {
    console.log(usage);
    return;
  }
  if (positionals.length === 0) throw new UsageError('No command given');
  const command = positionals.slice(0, 2).join(' ');
  const config = loadConfig();
  logToStderr();
  setLogLevel(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
  if (config.MONGODB_URI) console.error(`database ${databaseNamed(config.MONGODB_URI)} (MONGODB_URI)`);
  else {
    const folder = resolve(config.DATA_DIR);
    // Only `workspace create` starts a database; every other command reads one, and a new empty one would only answer "not found".
    if (!holdsEmbeddedDatabase(folder) && command !== 'workspace create') {
      throw new Error(
        `No database in ${folder} (DATA_DIR) yet: set DATA_DIR to the folder the service uses (npm start uses ./data in its own folder), or MONGODB_URI`,
      );
    }
    console.error(`embedded database in ${folder} (DATA_DIR)`);
  }
  const closeDatabase = await openDatabase(config, { role: 'cli' });
  try {
    console.log(JSON.stringify(await run(command, flags)));
  } finally {
    await closeDatabase();
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    console.error(`${(error as Error).message}\n\n${usage}`);
    process.exit(2);
  }
  console.error(JSON.stringify({ error: error instanceof Error ? error.message : String(error) }));
  process.exit(1);
});
