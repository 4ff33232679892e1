import { countForCampaign, type StepEffect } from '../campaigns/campaign-progress.ts';
import type { MessageEffect } from '../campaigns/enrollment.model.ts';
import { eventScopes, recordOutreachEvents } from '../counters/outreach-stats.service.ts';
import type { MessageDoc } from './message.model.ts';

/** What counting an effect needs of its message. */
export type EffectRecord = Pick<MessageDoc, 'workspaceId' | 'brandId' | 'inboxId' | 'campaignId' | 'step' | 'variant'>;

/** The effects counted in the statistics buckets as well (`refused` is the sending engine's, counted with the send). */
type CountedEffect = Exclude<MessageEffect, 'refused'>;

/**
 * Counts what came of sent messages (an open, a click, a reply, a bounce, an
 * unsubscription): in the statistics buckets of each message's scopes (one
 * write for all), and for a campaign's message in its campaign's counters,
 * for the step and variant the message was (one write per campaign).
 */
export async function countMessageEffects(effects: Array<{ record: EffectRecord; effect: CountedEffect }>, at?: number): Promise<void> {
  if (!effects.length) return;
  const byCampaign = new Map<string, StepEffect[]>();
  for (const { record, effect } of effects) {
    if (!record.campaignId || record.step === null || record.step === undefined) continue;
    const steps = byCampaign.get(record.campaignId) ?? [];
    steps.push({ step: record.step, variant: record.variant ?? 0, effect });
    byCampaign.set(record.campaignId, steps);
  }
  await Promise.all([
    recordOutreachEvents(
      effects.map(({ record, effect }) => ({ scopes: eventScopes(record), events: [effect] })),
      at,
    ),
    ...[...byCampaign].map(([campaignId, steps]) => countForCampaign(campaignId, {}, [], undefined, steps)),
  ]);
}

export const countMessageEffect = (record: EffectRecord, effect: CountedEffect) => countMessageEffects([{ record, effect }]);
