import { now as clockNow } from '../clock.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { AppError } from '../errors/app-error.ts';
import { findUserById, findUsersByEmail } from '../workspaces/index.ts';
import { hashPassword, passwordMatches, unmatchableHash } from './password-hash.ts';
import { SignInFailures, UserPassword, type SignInFailuresDoc, type UserPasswordDoc } from './sign-in.models.ts';

const minPasswordLength = 12;
/** Failures forgotten after this long without another. */
const failureWindowMs = 15 * 60_000;
/** Failures allowed before each further attempt must wait: 1 s, then doubling, at most 5 minutes. */
const freeFailures = 5;
const maxWaitMs = 5 * 60_000;

const emailKey = (email: string) => email.trim().toLowerCase();

/**
 * Sets the sign-in password of the user with this email (`workspaceId`
 * picks one when the address belongs to several workspaces).
 */
export async function setPassword(input: {
  email: string;
  password: string;
  workspaceId?: string;
}): Promise<{ userId: string; workspaceId: string }> {
  if (input.password.length < minPasswordLength)
    throw new AppError('validation_failed', `The password must have at least ${minPasswordLength} characters`, { field: 'password' });
  const users = (await findUsersByEmail(input.email)).filter((user) => !input.workspaceId || user.workspaceId === input.workspaceId);
  if (users.length === 0)
    throw new AppError('not_found', `No user with the email ${input.email}${input.workspaceId ? ' in that workspace' : ''}`);
  if (users.length > 1)
    throw new AppError('validation_failed', `${input.email} belongs to ${users.length} workspaces: name one with --workspace`, {
      field: 'workspace',
    });
  const user = users[0]!;
  await UserPassword.replaceOne(
    { _id: emailKey(input.email) },
    { userId: user._id, hash: await hashPassword(input.password) },
    { upsert: true },
  );
  return { userId: user._id, workspaceId: user.workspaceId };
}

export type SignInOutcome =
  { ok: true; userId: string } | { ok: false; reason: 'wrong' } | { ok: false; reason: 'wait'; retryAfterSeconds: number };

/** How long the busiest of these keys must still wait before its next attempt (0 when it may go on). */
function waitMs(records: Array<SignInFailuresDoc | null>, now: number): number {
  let wait = 0;
  for (const record of records) {
    if (!record || now - record.lastAt.getTime() > failureWindowMs || record.failures < freeFailures) continue;
    const backoff = Math.min(1000 * 2 ** (record.failures - freeFailures), maxWaitMs);
    wait = Math.max(wait, record.lastAt.getTime() + backoff - now);
  }
  return wait;
}

async function countFailure(key: string, now: Date) {
  const record = await SignInFailures.findById(key).lean<SignInFailuresDoc>();
  const fresh = !record || now.getTime() - record.lastAt.getTime() > failureWindowMs;
  await SignInFailures.replaceOne({ _id: key }, { failures: fresh ? 1 : record.failures + 1, lastAt: now }, { upsert: true });
}

/**
 * Checks an email and password from `address`. Repeated failures slow down
 * that account and that address alike: past five within a quarter hour, each
 * further attempt must wait (doubling from a second up to five minutes) and is
 * refused unchecked before then. Unknown emails cost the same time as wrong
 * passwords.
 */
export async function signIn(email: string, password: string, address: string): Promise<SignInOutcome> {
  const keys = [`email:${emailKey(email)}`, `address:${address}`];
  const now = clockNow();
  const wait = waitMs(await Promise.all(keys.map((key) => SignInFailures.findById(key).lean<SignInFailuresDoc>())), now.getTime());
  if (wait > 0) return { ok: false, reason: 'wait', retryAfterSeconds: Math.ceil(wait / 1000) };
  const stored = await UserPassword.findById(emailKey(email)).lean<UserPasswordDoc>();
  const matches = await passwordMatches(password, stored?.hash ?? (await unmatchableHash()));
  const user = matches && stored ? await findUserById(stored.userId) : null;
  if (!user) {
    for (const key of keys) await countFailure(key, now);
    return { ok: false, reason: 'wrong' };
  }
  await SignInFailures.deleteOne({ _id: keys[0] });
  return { ok: true, userId: user._id };
}

/** Forgets failures quiet for longer than the window; returns how many records went. */
export async function pruneSignInFailures(now = clockNow()): Promise<number> {
  return (await SignInFailures.deleteMany({ lastAt: { $lt: new Date(now.getTime() - failureWindowMs) } })).deletedCount;
}

export const signInFailureRetention = defineRetentionRule({
  records: 'sign-in failures',
  everyMs: 60 * 60_000,
  prune: () => pruneSignInFailures(),
});
