import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debitCredits, setBalances } from '../../src/credits/credits.service.ts';
import { readBalance } from '../../src/credits/debit-rules.ts';
import { connectDatabase, disconnectDatabase } from '../../src/db/connection.ts';
import { workspaceUsage } from '../../src/usage/usage.service.ts';
import { createWorkspace, updateWorkspace } from '../../src/account/account.service.ts';
import { useTestClock } from '../support/clock.ts';
import { freshDatabaseUri } from '../support/database.ts';

beforeAll(() => connectDatabase(freshDatabaseUri()));
afterAll(() => disconnectDatabase());
const clock = useTestClock();

const newWorkspace = async (timezone: string) => {
  const { workspaceId } = await createWorkspace({ name: 'Spending', plan: 'starter', email: 's@example.test' });
  await updateWorkspace(workspaceId, { timezone });
  return workspaceId;
};

const spentOn = async (workspaceId: string) =>
  Object.fromEntries(
    (await workspaceUsage(workspaceId)).days.filter((d) => d.crawl || d.agent || d.validation).map(({ date, ...spent }) => [date, spent]),
  );

describe('spending per day', () => {
  it('counts each debit once, on the workspace-local date, overage included', async () => {
    const workspaceId = await newWorkspace('America/New_York');
    // 03:30 UTC on the 10th is still the 9th in New York.
    clock.set(new Date('2026-03-10T03:30:00Z'));
    await debitCredits(workspaceId, 'crawl', 5);
    clock.set(new Date('2026-03-10T15:00:00Z'));
    await debitCredits(workspaceId, 'agent', 2);
    await setBalances(workspaceId, { validation: 3, overage: true });
    expect(await debitCredits(workspaceId, 'validation', 7)).toMatchObject({ charged: 3, overage: 4 });
    await Promise.all(Array.from({ length: 10 }, () => debitCredits(workspaceId, 'crawl', 1)));

    expect(await spentOn(workspaceId)).toEqual({
      '2026-03-09': { crawl: 5, agent: 0, validation: 0 },
      '2026-03-10': { crawl: 10, agent: 2, validation: 7 },
    });
    const usage = await workspaceUsage(workspaceId);
    expect(usage.days).toHaveLength(30);
    expect(usage.days[0]!.date).toBe('2026-02-09');
    expect(usage.days.at(-1)!.date).toBe('2026-03-10');
    expect(usage.credits).toEqual({
      crawl: { remaining: 2000 - 15, used30d: 15 },
      agent: { remaining: 498, used30d: 2 },
      validation: { remaining: 0, used30d: 7 },
    });
  });

  it('leaves days past the 30 out, and clears the old ones as later debits and reports pass', async () => {
    const workspaceId = await newWorkspace('UTC');
    for (const [at, amount] of [
      ['2026-01-01', 1],
      ['2026-01-20', 2],
      ['2026-02-15', 3],
    ] as const) {
      clock.set(new Date(`${at}T12:00:00Z`));
      await debitCredits(workspaceId, 'crawl', amount);
    }
    // On 2026-02-15 the 30 days start on 2026-01-17. The 1st, 45 days back, is past what that day's debit clears; the report clears it.
    expect(Object.keys((await readBalance(workspaceId))!.spent!).sort()).toEqual(['2026-01-01', '2026-01-20', '2026-02-15']);
    expect(await spentOn(workspaceId)).toEqual({
      '2026-01-20': { crawl: 2, agent: 0, validation: 0 },
      '2026-02-15': { crawl: 3, agent: 0, validation: 0 },
    });
    expect((await workspaceUsage(workspaceId)).credits.crawl.used30d).toBe(5);
    expect(Object.keys((await readBalance(workspaceId))!.spent!).sort()).toEqual(['2026-01-20', '2026-02-15']);

    // 38 days after the 20th, a debit clears it in its own update.
    clock.set(new Date('2026-02-27T12:00:00Z'));
    await debitCredits(workspaceId, 'crawl', 1);
    expect(Object.keys((await readBalance(workspaceId))!.spent!).sort()).toEqual(['2026-02-15', '2026-02-27']);
  });
});
