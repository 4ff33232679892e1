import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { debitCredits, getBalances, refundCredits, setBalances } from '../../src/credits/credits.service.ts';
import { createWorkspace } from '../../src/workspaces/workspace.service.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());

const newWorkspace = async () => (await createWorkspace({ name: 'Credits', plan: 'starter', email: 'c@example.test' })).workspaceId;

describe('credits', () => {
  it('starts a workspace with its plan\'s credits', async () => {
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
    expect(rejected[0]!.reason).toMatchObject({ appCode: 'insufficient_credits', status: 402 });
    expect((await getBalances(workspaceId)).crawl).toBe(0);
  });

  it('answers validation_credits_exhausted for validation credits', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { validation: 2 });
    await expect(debitCredits(workspaceId, 'validation', 3)).rejects.toMatchObject({ appCode: 'validation_credits_exhausted', status: 402 });
    expect((await getBalances(workspaceId)).validation).toBe(2);
  });

  it('with overage on, empties the balance and records the rest as overage', async () => {
    const workspaceId = await newWorkspace();
    await setBalances(workspaceId, { agent: 3, overage: true });
    expect(await debitCredits(workspaceId, 'agent', 5)).toEqual({ charged: 3, overage: 2, remaining: 0 });
    expect(await debitCredits(workspaceId, 'agent', 4)).toEqual({ charged: 0, overage: 4, remaining: 0 });
    await refundCredits(workspaceId, 'agent', 1);
    expect((await getBalances(workspaceId)).agent).toBe(1);
  });
});
