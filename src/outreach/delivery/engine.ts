import { nowMs } from '../../clock.ts';
import { log } from '../../logger.ts';
import { announcePendingUnsubscriptions } from '../../leads/index.ts';
import { activeCampaigns, announcePendingCompletions, completeCampaign } from '../campaigns/campaigns.service.ts';
import type { CampaignDoc } from '../campaign-record/campaign.model.ts';
import type { EnrollmentDoc } from '../campaigns/enrollment.model.ts';
import { inWindow } from '../campaigns/schedule.ts';
import { announcePendingPauses, inboxesForSending } from '../inboxes/inbox-sending.service.ts';
import { getSequenceForSending } from '../sequences/sequences.service.ts';
import { dueEnrollments, hasActiveEnrollments } from './enrollment-state.ts';
import type { CampaignPass, StepOutcome } from './pass.ts';
import { sendSteps } from './pipeline.ts';
import { recoverDeadHolds } from './send-recovery.ts';

/** Due steps read at a time per campaign, and sent together (see sendSteps). */
const batchSize = 500;
const chunkSize = 64;
/** Outcomes that moved an enrollment on: a batch with none of them (all claimed elsewhere) would only be read again. */
const progressed: ReadonlySet<StepOutcome> = new Set(['sent', 'skipped', 'stopped', 'deferred', 'failed', 'interrupted']);

export type TickReport = Partial<Record<StepOutcome, number>>;

/**
 * One pass of the sending engine: for each active campaign inside its
 * schedule window, highest priority first, every due step of its
 * enrollments (a batch at a time), until none is left or the campaign's
 * daily limit or its inboxes' caps say stop. Every rule is enforced per
 * message in sendDueStep, so passes may overlap (two workers) without
 * sending anything twice or over a cap. First, the send holds a dead worker
 * left are closed (send-recovery.ts), and the events of changes whose
 * process died before storing them (an inbox's pause, a campaign's
 * completion, a lead's unsubscription) are stored.
 */
export async function runOutreachPass(): Promise<TickReport> {
  const report: TickReport = {};
  await recoverDeadHolds().catch((error: unknown) =>
    log.error('closing the send holds of dead workers failed', { error: error instanceof Error ? error.message : String(error) }),
  );
  await Promise.all([announcePendingPauses(), announcePendingCompletions(), announcePendingUnsubscriptions()]).catch((error: unknown) =>
    log.error('storing the events of changes left unannounced failed', { error: error instanceof Error ? error.message : String(error) }),
  );
  for (const campaign of await activeCampaigns()) {
    if (!inWindow(campaign.schedule, nowMs())) continue;
    try {
      await sendForCampaign(campaign, report);
    } catch (error) {
      log.error('outreach pass failed for a campaign', {
        campaignId: campaign._id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return report;
}

async function sendForCampaign(campaign: CampaignDoc, report: TickReport): Promise<void> {
  let due = await dueEnrollments(campaign, new Date(nowMs()), batchSize);
  if (!due.length) {
    if (!(await hasActiveEnrollments(campaign._id))) await completeCampaign(campaign._id);
    return;
  }
  const inboxes = (await inboxesForSending(campaign.workspaceId, campaign.inboxIds)).filter((inbox) => !inbox.pausedAt);
  if (!inboxes.length) return;
  const pass: CampaignPass = {
    campaign,
    sequence: await getSequenceForSending(campaign.workspaceId, campaign.sequenceId),
    inboxes,
    rotation: { next: 0 },
  };
  if (!pass.inboxes.length) return;
  // Steps another worker is sending: left to it for the rest of this pass, and reported once.
  const elsewhere = new Set<string>();
  for (;;) {
    const outcomes = await sendBatch(pass, due, report, elsewhere);
    if (outcomes.has('campaign_full') || outcomes.has('inboxes_full') || ![...outcomes].some((outcome) => progressed.has(outcome))) return;
    // Still inside the window: a long pass must not run past its end.
    if (!inWindow(campaign.schedule, nowMs())) return;
    due = (await dueEnrollments(campaign, new Date(nowMs()), batchSize)).filter((enrollment) => !elsewhere.has(stepKey(enrollment)));
    if (!due.length) return;
  }
}

const stepKey = (enrollment: EnrollmentDoc) => `${enrollment._id}:${enrollment.nextStep}`;

/** Chunks of a batch under way at once: their database work and their SMTP calls overlap. */
const chunksAtOnce = 3;

/** Sends a batch of due steps a few chunks at a time; stops early once the campaign or its inboxes are full. */
async function sendBatch(pass: CampaignPass, due: EnrollmentDoc[], report: TickReport, elsewhere: Set<string>): Promise<Set<StepOutcome>> {
  const outcomes = new Set<StepOutcome>();
  let next = 0;
  const sender = async () => {
    while (next < due.length && !outcomes.has('campaign_full') && !outcomes.has('inboxes_full') && pass.inboxes.length) {
      const chunk = due.slice(next, next + chunkSize);
      next += chunkSize;
      for (const [index, outcome] of (await sendSteps(pass, chunk)).entries()) {
        if (!outcome) continue;
        outcomes.add(outcome);
        report[outcome] = (report[outcome] ?? 0) + 1;
        if (outcome === 'claimed_elsewhere') elsewhere.add(stepKey(chunk[index]!));
      }
    }
  };
  await Promise.all(Array.from({ length: chunksAtOnce }, sender));
  return outcomes;
}
