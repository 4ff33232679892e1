import { nowMs } from '../../clock.ts';
import { incrementCounter, incrementCounterOnce, type AppliedMark } from '../../db/counter.ts';
import type { CampaignOut } from '../../../schema/outreach/campaigns.ts';
import {
  CampaignCounters,
  Enrollment,
  type CampaignCountersDoc,
  type EnrollmentDoc,
  messageEffects,
  type MessageEffect,
} from './enrollment.model.ts';
import type { CampaignDoc } from '../campaign-record/campaign.model.ts';
import { nextWindowStart } from './schedule.ts';

type Counter = 'enrolled' | 'finished' | 'interrupted' | (EnrollmentDoc['stopReason'] & string);

/** What came of a message of a campaign's step: counted for that step and variant (MessageEffect). */
export interface StepEffect {
  step: number;
  variant: number;
  effect: MessageEffect;
}

/**
 * Moves a campaign's counters, the messages sent by step and variant too, and what came of them (`effects`: one
 * atomic increment of its counters document); with `mark`, once for that batch (incrementCounterOnce).
 */
export async function countForCampaign(
  campaignId: string,
  counts: Partial<Record<Counter, number>>,
  sent: Array<{ step: number; variant: number }> = [],
  mark?: AppliedMark,
  effects: StepEffect[] = [],
): Promise<void> {
  const inc: Record<string, number> = { ...counts };
  const add = (path: string) => (inc[path] = (inc[path] ?? 0) + 1);
  for (const { step, variant } of sent) add(`sent.${step}.${variant}`);
  for (const { step, variant, effect } of effects) add(`answered.${step}.${variant}.${effect}`);
  if (!Object.keys(inc).length) return;
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

/** A step and variant's figures: messages sent, and what came of them (refused at RCPT apart from sent). */
export type StepCounts = { step: number; variant: number; sent: number } & Record<MessageEffect, number>;

/** Every step and variant a campaign's counters hold (sent, or answered), by step then variant: one read by primary key. */
export async function campaignStepCounts(campaignId: string): Promise<StepCounts[]> {
  const counters = await CampaignCounters.findById(campaignId).lean<CampaignCountersDoc>();
  const found = new Map<string, StepCounts>();
  const at = (step: string, variant: string) => {
    const key = `${step}:${variant}`;
    let counts = found.get(key);
    if (!counts) {
      counts = { step: Number(step), variant: Number(variant), sent: 0, ...zeroEffects() };
      found.set(key, counts);
    }
    return counts;
  };
  for (const [step, variants] of Object.entries(counters?.sent ?? {}))
    for (const [variant, sent] of Object.entries(variants)) at(step, variant).sent += sent;
  for (const [step, variants] of Object.entries(counters?.answered ?? {}))
    for (const [variant, effects] of Object.entries(variants))
      for (const effect of messageEffects) at(step, variant)[effect] += effects[effect] ?? 0;
  return [...found.values()].sort((a, b) => a.step - b.step || a.variant - b.variant);
}

const zeroEffects = () => Object.fromEntries(messageEffects.map((effect) => [effect, 0])) as Record<MessageEffect, number>;
