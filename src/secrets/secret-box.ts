import { createCipheriv, createDecipheriv, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { secretsKey } from './secrets-key.ts';

/**
 * Secrets at rest (inbox passwords): AES-256-GCM under a key derived from
 * the master key (secrets-key.ts), stored as `v1:<iv>:<tag>:<ciphertext>`,
 * each part base64. The version names the scheme, so a later one (another
 * cipher, a rotated key) can be told apart from what is stored now. GCM's
 * tag makes any change to a sealed text fail to open rather than open to
 * something else. Nothing here logs or echoes a secret.
 */
const version = 'v1';
const ivBytes = 12;

/** A key for one use, derived from the master key with HKDF-SHA256, so no two uses ever share key material. */
function derive(info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey(), Buffer.alloc(0), `leadops/${info}`, 32));
}

/**
 * Derived keys per master key, each as bytes and as a KeyObject, made once: HKDF per message would cost more than
 * the HMAC it keys, and a cipher or HMAC given raw bytes imports them again each time.
 */
const derivedKeys = new WeakMap<Buffer, Map<string, { bytes: Buffer; object: KeyObject }>>();
function derived(info: string): { bytes: Buffer; object: KeyObject } {
  const master = secretsKey();
  let keys = derivedKeys.get(master);
  if (!keys) derivedKeys.set(master, (keys = new Map()));
  let key = keys.get(info);
  if (!key) {
    const bytes = derive(info);
    keys.set(info, (key = { bytes, object: createSecretKey(bytes) }));
  }
  return key;
}
const boxKey = () => derived(`secret-box/${version}`).object;

export class SecretOpenError extends Error {
  override readonly name = 'SecretOpenError';
}

export function sealSecret(plain: string): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', boxKey(), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [version, iv.toString('base64'), cipher.getAuthTag().toString('base64'), ciphertext.toString('base64')].join(':');
}

/** The plain text of a sealed secret; SecretOpenError when it is malformed, was changed, or was sealed under another key. */
export function openSecret(sealed: string): string {
  const parts = sealed.split(':');
  if (parts.length !== 4 || parts[0] !== version) throw new SecretOpenError(`Not a sealed secret of version ${version}`);
  const [iv, tag, ciphertext] = parts.slice(1).map((part) => Buffer.from(part, 'base64')) as [Buffer, Buffer, Buffer];
  if (iv.length !== ivBytes || tag.length !== 16) throw new SecretOpenError('Malformed sealed secret');
  try {
    const decipher = createDecipheriv('aes-256-gcm', boxKey(), iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretOpenError('A sealed secret failed its integrity check: it was changed, or sealed under another SECRETS_KEY');
  }
}

/**
 * A 32-byte key for signing, one per purpose (e.g. `unsubscribe`), derived
 * from the same master key: tokens signed for one purpose never verify for
 * another, and none of them reveals the key passwords are sealed with.
 */
export const signingKey = (purpose: string): Buffer => derived(signingInfo(purpose)).bytes;

/** signingKey as a KeyObject, for HMACs (made once per key). */
export const signingKeyObject = (purpose: string): KeyObject => derived(signingInfo(purpose)).object;

function signingInfo(purpose: string): string {
  if (!purpose) throw new Error('signingKey needs a purpose');
  return `signing/${purpose}`;
}
