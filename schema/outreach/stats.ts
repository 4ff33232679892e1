import { z } from 'zod';
import { uuid } from '../common.ts';

export const statsInput = z.object({
  brand: z
    .union([z.literal('all'), uuid])
    .optional()
    .describe(
      "A brand id to narrow to that brand's inboxes and campaigns, or `all` for the whole workspace (default: the credential's brand).",
    ),
});

const count = z.int().min(0);
const rate = z.number().min(0).max(1);

export const statsDay = z
  .object({
    date: z.iso.date().describe("The calendar day in the workspace's time zone, YYYY-MM-DD."),
    label: z.string().describe('Short English weekday and day of the month, e.g. `Mon 17`.'),
    sent: count.describe('Messages the SMTP server accepted that day.'),
    failed: count.describe('Sends that failed for good that day (an interrupted send, its outcome unknown, is not one).'),
    opened: count.describe('First opens of messages (tracking pixel) that day.'),
    replied: count.describe('Replies received that day.'),
    unsubscribed: count.describe('Recipients who unsubscribed that day.'),
    bounced: count.describe('Hard bounces that day (refused at RCPT or a bounce message).'),
    complained: count.describe('Complaints that day: recipients who marked a message as spam (a feedback report, or a provider notice).'),
  })
  .meta({ id: 'OutreachStatsDay' });

export const statsTotals = z
  .object({
    sent14d: count.describe('Sum of `sent` over the 14 days.'),
    failed14d: count.describe('Sum of `failed` over the 14 days.'),
    opened14d: count.describe('Sum of `opened` over the 14 days.'),
    replies14d: count.describe('Sum of `replied` over the 14 days.'),
    unsub14d: count.describe('Sum of `unsubscribed` over the 14 days.'),
    bounced14d: count.describe('Sum of `bounced` over the 14 days.'),
    complaints14d: count.describe('Sum of `complained` over the 14 days.'),
    unsubRate14d: rate.describe('unsub14d / sent14d (0 when nothing was sent; at most 1).'),
    bounceRate14d: rate.describe('bounced14d / sent14d (0 when nothing was sent; at most 1).'),
    complaintRate14d: rate.describe('complaints14d / sent14d (0 when nothing was sent; at most 1).'),
    activeEnrollments: count.describe('Enrollments still going in the campaigns (archived campaigns left out).'),
    sent24h: count.describe(
      "Sends of the inboxes in the rolling 24 hours, as their caps count them (the inboxes' `sent24h` summed; interrupted sends included).",
    ),
    capToday: count.describe("Today's caps of the inboxes that are not paused, summed."),
  })
  .meta({ id: 'OutreachStatsTotals', description: 'Totals over the 14 days, and sending figures now.' });

export const statsOutput = z.object({
  days: z.array(statsDay).length(14).describe("The last 14 calendar days in the workspace's time zone, oldest first, today last."),
  totals: statsTotals,
});
export type OutreachStatsOut = z.infer<typeof statsOutput>;

export const campaignStatsInput = z.object({ id: uuid.describe('The campaign.') });

const campaignCounts = {
  sent: count.describe('Messages sent (refused at RCPT included).'),
  opened: count.describe('First opens.'),
  clicked: count.describe('Unique clicks: each link of a message once.'),
  replied: count.describe('Replies from leads.'),
  bounced: count.describe('Hard bounces.'),
  unsubscribed: count.describe('Unsubscribe links used.'),
};
const campaignRate = (of: string) => rate.describe(`${of} / sent (0 when nothing was sent).`);

export const campaignStatsOutput = z.object({
  totals: z
    .object({
      ...campaignCounts,
      open_rate: campaignRate('opened'),
      click_rate: campaignRate('clicked'),
      reply_rate: campaignRate('replied'),
      bounce_rate: campaignRate('bounced'),
    })
    .meta({ id: 'CampaignStatsTotals', description: "The campaign's figures over its life: the sums of `steps`, and rates." }),
  steps: z
    .array(
      z
        .object({
          step: count.describe('Step index (0 is the first).'),
          variant: count.describe("A/B variant (0 is the step's own version)."),
          ...campaignCounts,
        })
        .meta({
          id: 'CampaignStatsStep',
          description: "A step version over the campaign's life; each effect counts for the step whose message it answers.",
        }),
    )
    .describe("Every step and variant of the campaign's sequence, and any other that sent (a step removed since), by step then variant."),
  days: z
    .array(
      z
        .object({ date: z.iso.date().describe("The calendar day in the campaign's time zone, YYYY-MM-DD."), ...campaignCounts })
        .meta({ id: 'CampaignStatsDay', description: 'What happened that day, whichever step it answers.' }),
    )
    .length(14)
    .describe("The last 14 calendar days in the campaign's time zone (its schedule's), oldest first, today last."),
});
export type CampaignStatsOut = z.infer<typeof campaignStatsOutput>;
