import { z } from 'zod';
import { capacityOutput } from './leads.ts';

const credits = z.int().describe('Credits.');

const balance = z
  .object({
    remaining: credits.describe('Credits of the kind left.'),
    used30d: credits.describe('Credits of the kind spent over the 30 days listed in `days` (overage included).'),
  })
  .meta({ id: 'CreditBalance', description: 'One kind of credits: what is left, and what was spent.' });

export const usageDay = z
  .object({
    date: z.iso.date().describe("The day, in the workspace's time zone (YYYY-MM-DD)."),
    crawl: credits.describe('Crawl credits spent that day.'),
    agent: credits.describe('Agent credits spent that day.'),
    validation: credits.describe('Validation credits spent that day.'),
  })
  .meta({ id: 'UsageDay' });

export const usageOutput = z
  .object({
    plan: z.string().describe("The workspace's plan: `free`, `starter`, `pro` or `business`."),
    overage: z.boolean().describe('True when work may go on past an empty balance (the excess is billed).'),
    credits: z
      // One schema for the three, so that clients get one CreditBalance type.
      .object({ crawl: balance, agent: balance, validation: balance })
      .describe("Each kind's balance and what was spent over the last 30 days."),
    leads: capacityOutput.describe("Stored leads against the plan's cap (as GET /api/leads/capacity)."),
    keys: z
      .object({
        active: z.int().describe('API keys accepted now (not revoked, not expired).'),
        limit: z.int().describe("The plan's limit of active keys."),
      })
      .describe("API keys against the plan's limit."),
    days: z
      .array(usageDay)
      .length(30)
      .describe('The last 30 days, oldest first, today last: credits spent each day (zeros for days without spending).'),
  })
  .meta({ id: 'Usage' });
export type UsageOut = z.infer<typeof usageOutput>;
