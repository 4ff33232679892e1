import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { settings, type Config } from '../config.ts';

const keyBytes = 32;
export const keyFileName = 'secrets.key';
const howToMake = 'set it to 32 random bytes in base64, e.g. `openssl rand -base64 32`';

/** The master key is missing or malformed: a configuration error, said in one line (main.ts exits with it). */
export class SecretsKeyError extends Error {
  override readonly name = 'SecretsKeyError';
}

/** 32 bytes from base64 text, or an error naming `source` (never echoing the text: it may be most of a key). */
function decodeKey(text: string, source: string, hint = howToMake): Buffer {
  const trimmed = text.trim();
  const key = Buffer.from(trimmed, 'base64');
  // Buffer.from skips characters that are not base64; re-encoding tells such text from real base64.
  const isBase64 = key.toString('base64').replace(/=+$/, '') === trimmed.replace(/=+$/, '');
  if (!isBase64 || key.length !== keyBytes) {
    throw new SecretsKeyError(
      `${source} must be ${keyBytes} bytes in base64 (it ${isBase64 ? `decodes to ${key.length} bytes` : 'is not base64'}): ${hint}`,
    );
  }
  return key;
}

/**
 * The embedded default's key, DATA_DIR/secrets.key: read when it exists,
 * else made. A new key is written to a private temp file and linked into
 * place, which fails when the name exists: two starts racing cannot both
 * write a key (each would then seal with its own), and the file never
 * appears without its content. The loser reads the winner's key.
 */
function keyFromDataDir(dataDir: string): Buffer {
  const path = join(dataDir, keyFileName);
  const source = `The key file ${path}`;
  const hint = 'restore the key it held (inbox passwords sealed with another key cannot be opened)';
  try {
    return decodeKey(readFileSync(path, 'utf8'), source, hint);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const draft = join(dataDir, `.${keyFileName}.${process.pid}.${randomBytes(6).toString('hex')}`);
  writeFileSync(draft, `${randomBytes(keyBytes).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return decodeKey(readFileSync(path, 'utf8'), source, hint);
}

let cached: { config: Config; key: Buffer } | undefined;

/**
 * The master key secrets are sealed with: SECRETS_KEY when set; else, on
 * the embedded database, the one kept in DATA_DIR; with MONGODB_URI and no
 * SECRETS_KEY there is none, since processes sharing a database must share
 * the key and no file is shared between them. main.ts asks for it at start
 * so a missing or malformed key stops the service before it serves.
 */
export function secretsKey(config: Config = settings()): Buffer {
  if (cached?.config === config) return cached.key;
  let key: Buffer;
  if (config.SECRETS_KEY !== undefined) key = decodeKey(config.SECRETS_KEY, 'Invalid environment variable SECRETS_KEY:');
  else if (config.MONGODB_URI) throw new SecretsKeyError(`SECRETS_KEY is required with MONGODB_URI: ${howToMake}`);
  else key = keyFromDataDir(config.DATA_DIR);
  cached = { config, key };
  return key;
}
