import { nowMs } from '../../clock.ts';
import { incrementCounter, incrementCounterOnce, type AppliedMark } from '../../db/counter.ts';
import type { CampaignOut } from '../../../schema/outreach/campaigns.ts';
import { CampaignCounters, Enrollment, type CampaignCountersDoc, type EnrollmentDoc } from './enrollment.model.ts';
import type { CampaignDoc } from '../campaign-record/campaign.model.ts';
import { nextWindowStart } from './schedule.ts';

type Counter = 'enrolled' | 'finished' | 'interrupted' | (EnrollmentDoc['stopReason'] & string);

/**
 * Moves a campaign's counters, the messages sent by step and variant too (one atomic increment of its counters
 * document); with `mark`, once for that batch (incrementCounterOnce).
 */
export async function countForCampaign(
  campaignId: string,
  counts: Partial<Record<Counter, number>>,
  sent: Array<{ step: number; variant: number }> = [],
  mark?: AppliedMark,
): Promise<void> {
  const inc: Record<string, number> = { ...counts };
  for (const { step, variant } of sent) inc[`sent.${step}.${variant}`] = (inc[`sent.${step}.${variant}`] ?? 0) + 1;
  if (mark) await incrementCounterOnce(CampaignCounters, campaignId, inc, mark);
  else await incrementCounter(CampaignCounters, campaignId, inc);
}

const stoppedReasons = [
  'replied',
  'bounced',
  'unsubscribed',
  'suppressed',
  'archived',
  'failed',
  'lead_gone',
  'invalid_email',
  'removed',
] as const;

/** Enrollments still going: enrolled, less those finished or stopped. */
const activeOf = (counters: Partial<CampaignCountersDoc>) => {
  const count = (key: keyof CampaignCountersDoc) => (counters[key] as number | undefined) ?? 0;
  return Math.max(0, count('enrolled') - count('finished') - stoppedReasons.reduce((sum, reason) => sum + count(reason), 0));
};

/** Enrollments still going over these campaigns, from their counters (read by primary key, in parallel). */
export async function activeEnrollmentCount(campaignIds: string[]): Promise<number> {
  const all = await Promise.all(campaignIds.map((id) => CampaignCounters.findById(id).lean<CampaignCountersDoc>()));
  return all.reduce((total, counters) => total + (counters ? activeOf(counters) : 0), 0);
}

/** A campaign's progress: its counters, and when its next message is due within its schedule. */
export async function campaignProgress(campaign: CampaignDoc): Promise<CampaignOut['progress']> {
  const counters =
    (await CampaignCounters.findById(campaign._id).lean<CampaignCountersDoc>()) ?? ({ sent: {} } as Partial<CampaignCountersDoc>);
  const count = (key: keyof CampaignCountersDoc) => (counters[key] as number | undefined) ?? 0;
  const next = campaign.status === 'active' || campaign.status === 'paused' ? await nextDue(campaign) : null;
  return {
    enrolled: count('enrolled'),
    active: activeOf(counters),
    finished: count('finished'),
    replied: count('replied'),
    bounced: count('bounced'),
    unsubscribed: count('unsubscribed'),
    removed: count('removed'),
    // Suppressed, archived and vanished leads, addresses validated invalid, and permanent failures: stopped for a
    // reason other than the lead's answer.
    failed: count('failed') + count('suppressed') + count('archived') + count('lead_gone') + count('invalid_email'),
    interrupted: count('interrupted'),
    steps: Object.entries(counters.sent ?? {})
      .map(([step, variants]) => ({
        step: Number(step),
        sent: Object.values(variants).reduce((sum, n) => sum + n, 0),
        variants: Object.entries(variants)
          .map(([variant, sent]) => ({ variant: Number(variant), sent }))
          .sort((a, b) => a.variant - b.variant),
      }))
      .sort((a, b) => a.step - b.step),
    next_send_at: next === null ? null : new Date(next).toISOString(),
  };
}

async function nextDue(campaign: CampaignDoc): Promise<number | null> {
  const [first] = await Enrollment.find({ campaignId: campaign._id, status: 'active' }, { nextDueAt: 1 })
    .sort({ nextDueAt: 1 })
    .limit(1)
    .lean<EnrollmentDoc[]>();
  return first ? nextWindowStart(campaign.schedule, Math.max(nowMs(), first.nextDueAt.getTime())) : null;
}
