/** The plans a workspace can be on. */
export const plans = ['free', 'starter', 'pro', 'business'] as const;
export type Plan = (typeof plans)[number];

/** The plan gates: `paid` is any plan but free (sending, replies); `pro` is Pro or Business (sentiment, A/B variants). */
export const planGates = {
  paid: ['starter', 'pro', 'business'],
  pro: ['pro', 'business'],
} as const satisfies Record<string, readonly Plan[]>;
export type PlanGate = keyof typeof planGates;
