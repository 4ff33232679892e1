import { it } from 'vitest';

/**
 * The one list of why some tests are skipped when CI runs the suite a
 * second time with STORE_SEMANTICS=mongodb (MongoDB's code path: atomic
 * conditional updates, Agenda's own locking) on the embedded FerretDB.
 *
 * These tests race concurrent writers against one document (credit
 * balances, the lead cap counter, a lead's unique email, a rate-limit
 * window) and assert that exactly the allowed ones win. MongoDB applies a
 * conditional update atomically; FerretDB 1.x applies it as read-then-write
 * of the whole document (so concurrent updates of one document can also
 * lose each other's changes), and the service makes that exact only through
 * its in-process lock, which the MongoDB semantics turn off. Tests that are
 * about something else avoid racing one document (separate workspaces). On FerretDB in that mode they would fail
 * for a reason production never meets, so there they are skipped; in the
 * first run they execute, and every non-racing test runs in both.
 */
export const racesNeedAtomicStore = process.env.STORE_SEMANTICS === 'mongodb';

/** `it` for a test whose point is concurrency only an atomic store (or the in-process lock) makes exact. */
export const itRacingOneDocument = racesNeedAtomicStore ? it.skip : it;
