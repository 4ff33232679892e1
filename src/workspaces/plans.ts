export const plans = ['free', 'starter', 'pro', 'business'] as const;
export type Plan = (typeof plans)[number];

interface PlanRules {
  /** Stored (non-archived) leads the workspace may keep. */
  leadLimit: number;
  /** Credits granted when a workspace starts on this plan. */
  credits: { crawl: number; agent: number; validation: number };
  /** API keys that may be active (not revoked, not expired) at once, the owner's key included. */
  activeKeys: number;
}

export const planRules: Record<Plan, PlanRules> = {
  free: { leadLimit: 5_000, credits: { crawl: 100, agent: 50, validation: 100 }, activeKeys: 5 },
  starter: { leadLimit: 25_000, credits: { crawl: 2_000, agent: 500, validation: 2_000 }, activeKeys: 10 },
  pro: { leadLimit: 100_000, credits: { crawl: 10_000, agent: 2_500, validation: 10_000 }, activeKeys: 25 },
  business: { leadLimit: 500_000, credits: { crawl: 50_000, agent: 10_000, validation: 50_000 }, activeKeys: 100 },
};

/** The plan gates: `paid` is any plan but free (sending, replies); `pro` is Pro or Business (sentiment, A/B variants). */
export const planGates = {
  paid: ['starter', 'pro', 'business'],
  pro: ['pro', 'business'],
} as const satisfies Record<string, readonly Plan[]>;
export type PlanGate = keyof typeof planGates;

export const meetsPlanGate = (plan: Plan, gate: PlanGate) => (planGates[gate] as readonly Plan[]).includes(plan);
