import { planGates, type Plan, type PlanGate } from '../../schema/plans.ts';

interface PlanRules {
  /** Stored (non-archived) leads the workspace may keep. */
  leadLimit: number;
  /** Credits granted when a workspace starts on this plan. */
  credits: { crawl: number; agent: number; validation: number };
  /** API keys that may be active (not revoked, not expired) at once, the owner's key included. */
  activeKeys: number;
  /** Members (users) the workspace may have, the owner included. */
  seats: number;
}

export const planRules: Record<Plan, PlanRules> = {
  free: { leadLimit: 5_000, credits: { crawl: 100, agent: 50, validation: 100 }, activeKeys: 5, seats: 1 },
  starter: { leadLimit: 25_000, credits: { crawl: 2_000, agent: 500, validation: 2_000 }, activeKeys: 10, seats: 3 },
  pro: { leadLimit: 100_000, credits: { crawl: 10_000, agent: 2_500, validation: 10_000 }, activeKeys: 25, seats: 10 },
  business: { leadLimit: 500_000, credits: { crawl: 50_000, agent: 10_000, validation: 50_000 }, activeKeys: 100, seats: 50 },
};

export const meetsPlanGate = (plan: Plan, gate: PlanGate) => (planGates[gate] as readonly Plan[]).includes(plan);
