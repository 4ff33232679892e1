import type { UsageOut } from '../../schema/usage.ts';
import { nowMs } from '../clock.ts';
import { creditKinds, daysBefore, getBalances, localDate, spendingByDay } from '../credits/index.ts';
import { keyAllowance } from '../keys/index.ts';
import { leadCapacity } from '../leads/index.ts';
import { getWorkspace, workspaceTimezone } from '../workspaces/index.ts';

const reportedDays = 30;

/**
 * What the workspace has and has spent: balances, the last 30 days of
 * spending by workspace-local date (as each debit recorded it, never
 * counted again), stored leads and active keys against the plan.
 */
export async function workspaceUsage(workspaceId: string): Promise<UsageOut> {
  const workspace = await getWorkspace(workspaceId);
  const today = localDate(nowMs(), workspaceTimezone(workspace));
  const [balances, spent, leads, keys] = await Promise.all([
    getBalances(workspaceId),
    spendingByDay(workspaceId, today),
    leadCapacity(workspaceId),
    keyAllowance(workspaceId),
  ]);
  const days = Array.from({ length: reportedDays }, (_, i) => {
    const date = daysBefore(today, reportedDays - 1 - i);
    const day = spent[date] ?? {};
    return { date, crawl: day.crawl ?? 0, agent: day.agent ?? 0, validation: day.validation ?? 0 };
  });
  const credits = Object.fromEntries(
    creditKinds.map((kind) => [kind, { remaining: balances[kind], used30d: days.reduce((sum, day) => sum + day[kind], 0) }]),
  ) as UsageOut['credits'];
  return { plan: workspace.plan, overage: balances.overage, credits, leads, keys, days };
}
