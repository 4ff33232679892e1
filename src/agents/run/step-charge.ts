import { AppError } from '../../errors/app-error.ts';
import { debitCredits, getBalances, UsageAccountClosedError, usageOf } from '../../credits/index.ts';
import type { AgentRunDoc } from '../agent-run.model.ts';
import { usageAccount } from './run-lifecycle.ts';

/** Agent credits a step costs: 1 per 1,000 model tokens (rounded up, per model call) and 1 per page fetched. */
export const stepCost = (tokens: number, pages: number) => Math.ceil(tokens / 1_000) + pages;

export type StepCharge = 'account-closed' | { charged: number; overage: number; exhausted: boolean };

/**
 * Charges step `seq` to the run's usage account, once however often the
 * step is done. When the balance cannot pay it all (overage off), what is
 * left is taken and the run must stop (`exhausted`).
 */
export async function chargeStep(run: AgentRunDoc, seq: number, tokens: number, pages: number): Promise<StepCharge> {
  const account = usageAccount(run._id);
  const cost = stepCost(tokens, pages);
  let exhausted = false;
  try {
    if (cost > 0) await debitCredits(run.workspaceId, 'agent', cost, { account, sequence: seq });
  } catch (error) {
    if (error instanceof UsageAccountClosedError) return 'account-closed';
    if (!(error instanceof AppError && error.code === 'insufficient_credits')) throw error;
    exhausted = true;
    const left = (await getBalances(run.workspaceId)).agent;
    if (left > 0) await debitCredits(run.workspaceId, 'agent', left, { account, sequence: seq }).catch(() => undefined);
  }
  const usage = await usageOf(run.workspaceId, account);
  return { charged: usage.charged, overage: usage.overage, exhausted };
}
