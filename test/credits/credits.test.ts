import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import {
  closeUsage,
  debitCredits,
  getBalances,
  openUsage,
  setBalances,
  usageOf,
  UsageAccountClosedError,
} from '../../src/credits/credits.service.ts';
import { createWorkspace } from '../../src/account/account.service.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

const newWorkspace = async () => (await createWorkspace({ name: 'Credits', plan: 'starter', email: 'c@example.test' })).workspaceId;

describe('credits', () => {
  it("starts a workspace with its plan's credits", async () => {
    const workspaceId = await newWorkspace();
    expect(await getBalances(workspaceId)).toEqual({ crawl: 2000, agent: 500, validation: 2000, overage: false });
  });

  it('never lets concurrent debits take the balance below zero', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { crawl: 10 });
    const results = await Promise.allSettled(Array.from({ length: 25 }, () => debitCredits(workspaceId, 'crawl', 1)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected).toHaveLength(15);
    expect(rejected[0]!.reason).toMatchObject({ code: 'insufficient_credits', status: 402 });
    expect((await getBalances(workspaceId)).crawl).toBe(0);
  });

  it('answers validation_credits_exhausted for validation credits', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { validation: 2 });
    await expect(debitCredits(workspaceId, 'validation', 3)).rejects.toMatchObject({ code: 'validation_credits_exhausted', status: 402 });
    expect((await getBalances(workspaceId)).validation).toBe(2);
  });

  it('with overage on, empties the balance and records the rest as overage', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { agent: 3, overage: true });
    expect(await debitCredits(workspaceId, 'agent', 5)).toEqual({ charged: 3, overage: 2, remaining: 0, repeated: false });
    expect(await debitCredits(workspaceId, 'agent', 4)).toEqual({ charged: 0, overage: 4, remaining: 0, repeated: false });
    expect(await getBalances(workspaceId)).toMatchObject({ agent: 0, overage: true });
  });

  it('charges an item of an open usage account once, however often it is retried, and refuses charges once it is closed', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { crawl: 4, overage: true });
    const page = (sequence: number) => debitCredits(workspaceId, 'crawl', 3, { account: 'scrape-run:r1', sequence });
    await expect(page(0)).rejects.toBeInstanceOf(UsageAccountClosedError);
    await openUsage(workspaceId, 'scrape-run:r1');
    expect(await page(0)).toMatchObject({ charged: 3, overage: 0, repeated: false });
    expect(await page(0)).toMatchObject({ charged: 0, overage: 0, repeated: true });
    expect(await page(1)).toEqual({ charged: 1, overage: 2, remaining: 0, repeated: false });
    // A retry starts again from the first item: everything below the account's next sequence is free.
    expect(await page(0)).toMatchObject({ repeated: true });
    expect(await page(1)).toMatchObject({ repeated: true });
    expect(await usageOf(workspaceId, 'scrape-run:r1')).toEqual({ items: 2, charged: 4, overage: 2, next: 2 });
    expect(await getBalances(workspaceId)).toMatchObject({ crawl: 0 });

    await closeUsage(workspaceId, 'scrape-run:r1');
    expect(await usageOf(workspaceId, 'scrape-run:r1')).toEqual({ items: 0, charged: 0, overage: 0, next: 0 });
    await expect(page(2)).rejects.toBeInstanceOf(UsageAccountClosedError);
    expect((await getBalances(workspaceId)).crawl).toBe(0);
  });

  it('charges several items in one charge, once, skipping the numbers between that cost nothing', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { validation: 10 });
    const account = 'validation-job:j1';
    await openUsage(workspaceId, account);
    // Items 0 to 4, of which 3 cost a credit each.
    expect(await debitCredits(workspaceId, 'validation', 3, { account, sequence: 0, through: 4, items: 3 })).toEqual({
      charged: 3,
      overage: 0,
      remaining: 7,
      repeated: false,
    });
    expect(await debitCredits(workspaceId, 'validation', 3, { account, sequence: 0, through: 4, items: 3 })).toMatchObject({
      charged: 0,
      repeated: true,
    });
    expect(await debitCredits(workspaceId, 'validation', 1, { account, sequence: 3 })).toMatchObject({ repeated: true });
    expect(await usageOf(workspaceId, account)).toEqual({ items: 3, charged: 3, overage: 0, next: 5 });
    // More than the balance, overage off: nothing taken.
    await expect(debitCredits(workspaceId, 'validation', 8, { account, sequence: 5, through: 12, items: 8 })).rejects.toMatchObject({
      code: 'validation_credits_exhausted',
    });
    expect(await debitCredits(workspaceId, 'validation', 2, { account, sequence: 5, through: 7, items: 2 })).toMatchObject({
      charged: 2,
      remaining: 5,
    });
    expect(await usageOf(workspaceId, account)).toEqual({ items: 5, charged: 5, overage: 0, next: 8 });
  });

  it('charges an item once when its charges race', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { crawl: 4, overage: true });
    await openUsage(workspaceId, 'scrape-run:r2');
    // Items are charged in order (a run's pages); the same item's charges race when a worker taking a run over repeats one.
    const charge = (sequence: number) => debitCredits(workspaceId, 'crawl', 3, { account: 'scrape-run:r2', sequence });
    const first = await Promise.all([0, 0, 0].map(charge));
    expect(first.filter((d) => !d.repeated)).toEqual([{ charged: 3, overage: 0, remaining: 1, repeated: false }]);
    const second = await Promise.all([1, 1, 0].map(charge));
    expect(second.filter((d) => !d.repeated)).toEqual([{ charged: 1, overage: 2, remaining: 0, repeated: false }]);
    expect(await usageOf(workspaceId, 'scrape-run:r2')).toEqual({ items: 2, charged: 4, overage: 2, next: 2 });
  });
});
