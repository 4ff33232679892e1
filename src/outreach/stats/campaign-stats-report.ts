import type { CampaignStatsOut } from '../../../schema/outreach/stats.ts';
import { campaignStepCounts, type StepCounts } from '../campaigns/campaign-progress.ts';
import { getCampaignDoc } from '../campaigns/campaigns.service.ts';
import { campaignScope, localDailyCounts } from '../counters/outreach-stats.service.ts';
import { getSequenceForSending } from '../sequences/sequences.service.ts';

const reportDays = 14;
const figures = ['sent', 'opened', 'clicked', 'replied', 'bounced', 'unsubscribed'] as const;
type Figures = Record<(typeof figures)[number], number>;

const ratio = (part: number, whole: number) => (whole > 0 ? Math.min(1, part / whole) : 0);

/** A step's figures as the report names them: a hard bounce refused at RCPT is a send (as the workspace's statistics count it). */
const stepFigures = (counts: StepCounts): Figures => ({
  sent: counts.sent + counts.refused,
  opened: counts.opened,
  clicked: counts.clicked,
  replied: counts.replied,
  bounced: counts.bounced,
  unsubscribed: counts.unsubscribed,
});

/**
 * A campaign's statistics: its figures over its life by step and variant
 * (its counters, each effect counted for the step whose message it
 * answers) and their totals with rates, and the last 14 calendar days in
 * the campaign's time zone (its statistics buckets). 404 for a campaign not
 * the workspace's.
 */
export async function campaignStatsReport(workspaceId: string, campaignId: string): Promise<CampaignStatsOut> {
  const campaign = await getCampaignDoc(workspaceId, campaignId);
  const [counted, sequence, perDay] = await Promise.all([
    campaignStepCounts(campaign._id),
    getSequenceForSending(workspaceId, campaign.sequenceId).catch(() => null),
    localDailyCounts(campaignScope(campaign._id), campaign.schedule.timezone, reportDays),
  ]);
  const steps = new Map<string, { step: number; variant: number } & Figures>();
  const zero = () => Object.fromEntries(figures.map((figure) => [figure, 0])) as Figures;
  // Every version of the sequence's steps, sent or not yet.
  sequence?.steps.forEach((step, index) => {
    for (let variant = 0; variant <= step.variants.length; variant++) steps.set(`${index}:${variant}`, { step: index, variant, ...zero() });
  });
  for (const counts of counted)
    steps.set(`${counts.step}:${counts.variant}`, { step: counts.step, variant: counts.variant, ...stepFigures(counts) });
  const rows = [...steps.values()].sort((a, b) => a.step - b.step || a.variant - b.variant);
  const totals = zero();
  for (const row of rows) for (const figure of figures) totals[figure] += row[figure];
  return {
    totals: {
      ...totals,
      open_rate: ratio(totals.opened, totals.sent),
      click_rate: ratio(totals.clicked, totals.sent),
      reply_rate: ratio(totals.replied, totals.sent),
      bounce_rate: ratio(totals.bounced, totals.sent),
    },
    steps: rows,
    days: perDay.map((day) => ({
      date: day.date,
      sent: day.sent,
      opened: day.opened,
      clicked: day.clicked,
      replied: day.replied,
      bounced: day.bounced,
      unsubscribed: day.unsubscribed,
    })),
  };
}
