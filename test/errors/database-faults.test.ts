import { TRPCError } from '@trpc/server';
import mongoose from 'mongoose';
import { describe, expect, it } from 'vitest';
import { toErrorResponse } from '../../src/errors/error-response.ts';
import { setLogLevel } from '../../src/logger.ts';

// A full disk met is logged once at error level: expected here.
setLogLevel('silent');

const { MongoBulkWriteError, MongoServerError } = mongoose.mongo;

/** An error as the driver makes it from a server's reply (the constructor it uses on every `ok: 0` reply and write error). */
const serverError = (reply: Record<string, unknown>) => new MongoServerError({ ok: 0, ...reply });
/** An unordered insertMany's failure: the driver names the first write error's code, and lists them all. */
const bulkError = (writeErrors: Array<{ index: number; code: number; errmsg: string }>) =>
  new MongoBulkWriteError({ message: writeErrors[0]!.errmsg, code: writeErrors[0]!.code, writeErrors } as never, {} as never);

/**
 * A full disk, as each store says it: the service maps every one to one answer, 507 storage_full (the full disk of
 * the embedded store is exercised for real in test/process/full-disk.test.ts; no MongoDB server runs here).
 */
describe('a full disk, whichever store reports it', () => {
  const fullDisk = {
    'FerretDB on SQLite (SQLITE_FULL, as an InternalError)': serverError({
      code: 1,
      codeName: 'InternalError',
      errmsg: '[msg_insert.go:168 handler.(*Handler).MsgInsert] [db.go:222 fsql.(*DB).InTransaction] database or disk is full (13)',
    }),
    'MongoDB OutOfDiskSpace (14031)': serverError({
      code: 14031,
      codeName: 'OutOfDiskSpace',
      errmsg: 'Cannot write: available disk space is below the threshold',
    }),
    "WiredTiger's ENOSPC passed on by MongoDB": serverError({
      code: 8,
      codeName: 'UnknownError',
      errmsg: 'WiredTigerRecordStore::insertRecord 28: No space left on device',
    }),
    'one of an unordered insert’s write errors, after a duplicate': bulkError([
      { index: 0, code: 11000, errmsg: 'E11000 duplicate key error collection: leadops.leads' },
      { index: 1, code: 14031, errmsg: 'Cannot write: out of disk space' },
    ]),
  };

  for (const [store, error] of Object.entries(fullDisk)) {
    it(`answers 507 storage_full for ${store}, on every surface's path`, () => {
      for (const thrown of [error, new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error })]) {
        const { status, body, headers } = toErrorResponse(thrown);
        expect(status).toBe(507);
        expect(body).toEqual({
          code: 'storage_full',
          error: expect.stringMatching(/^The disk under DATA_DIR is full: this call's change was not stored, or only in part\./),
        });
        expect(headers).toEqual({});
      }
      // A query is not told of a change it was not making.
      expect(toErrorResponse(error, 'standard', 'read').body.error).toMatch(
        /^The disk under DATA_DIR is full: this call could not store what it needed\./,
      );
    });
  }

  it('leaves other store errors what they were: a duplicate key alone, a bad value, a lock timeout', () => {
    for (const error of [
      bulkError([{ index: 0, code: 11000, errmsg: 'E11000 duplicate key error collection: leadops.leads' }]),
      serverError({ code: 2, codeName: 'BadValue', errmsg: 'unknown operator: $nope' }),
      serverError({ code: 1, codeName: 'InternalError', errmsg: 'database is locked (5)' }),
    ]) {
      expect(toErrorResponse(error)).toMatchObject({ status: 500, body: { code: 'internal_error', error: 'Internal server error' } });
    }
  });
});
