import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { releaseTurn, takeTurn } from '../db/turns.ts';
import { AppError } from '../errors/app-error.ts';
import { planRules, getWorkspace } from '../workspaces/index.ts';
import { Lead, LeadCapTurn } from './lead.models.ts';

/** How long a turn lasts at most: far longer than the largest import (500 leads) takes, short enough that a writer that died blocks little. */
const turnMs = 30_000;
/** How long a writer waits for its turn before giving up with a conflict. */
const waitMs = 120_000;

/** Leads counted against the plan's cap: those not archived. Served by the index the list uses. */
export const storedLeadCount = (workspaceId: string) => Lead.countDocuments({ workspaceId, archivedAt: null });

/** Every lead of the workspace, archived too. */
export const allLeadCount = (workspaceId: string) => Lead.countDocuments({ workspaceId });

export const leadLimit = async (workspaceId: string) => planRules[(await getWorkspace(workspaceId)).plan].leadLimit;

export const leadLimitError = (used: number, limit: number, requested: number) =>
  new AppError('lead_limit', `Lead storage is full: ${used} of ${limit} stored, ${requested} more requested. Archive leads or upgrade.`, {
    used,
    limit,
  });

/**
 * Runs `write` in the workspace's turn to store leads, handing it the count of leads stored
 * (not archived) when the turn began. The plan's cap needs the count and the writes that
 * depend on it to be one step; without transactions, writers that add leads to the count
 * (imports, agents' leads, restores) take turns through one document per workspace, won
 * with a conditional update on any number of processes. Archiving and deleting only make
 * room, and take no turn: a writer counting just before one lands refuses at most what it
 * would have refused a moment earlier.
 */
export async function inLeadCapTurn<T>(workspaceId: string, write: (stored: number) => Promise<T>): Promise<T> {
  const holder = randomUUID();
  await waitForTurn(workspaceId, holder);
  try {
    return await write(await storedLeadCount(workspaceId));
  } finally {
    await releaseTurn(LeadCapTurn, workspaceId, holder);
  }
}

async function waitForTurn(workspaceId: string, holder: string): Promise<void> {
  const giveUpAt = Date.now() + waitMs;
  for (let attempt = 0; !(await takeTurn(LeadCapTurn, workspaceId, holder, turnMs)); attempt++) {
    if (Date.now() > giveUpAt) throw new AppError('conflict', 'Other writes of leads to this workspace are taking long; try again.');
    await sleep(Math.min(5 * 2 ** Math.min(attempt, 4), 80) * (0.5 + Math.random()));
  }
}
