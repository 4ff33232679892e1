import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  length: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/** OWASP's scrypt floor (N=2^17, r=8, p=1: 128 MiB and ~0.3 s per hash) halved in memory for a 2-core API host. */
const cost = { N: 2 ** 16, r: 8, p: 1 };
const keyLength = 32;
const maxmem = 256 * 1024 * 1024;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, keyLength, { ...cost, maxmem });
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** True when `password` matches `stored`; the comparison takes the same time whatever differs. */
export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(N),
    r: Number(r),
    p: Number(p),
    maxmem,
  });
  return timingSafeEqual(actual, expected);
}

let unmatchable: Promise<string> | undefined;
/** A hash no password matches, checked for unknown emails so that they take as long to refuse as wrong passwords. */
export const unmatchableHash = () => (unmatchable ??= hashPassword(randomBytes(32).toString('base64')));
