import type { z } from 'zod';
import type { privacyEraseOutput } from '../../schema/privacy.ts';
import { eraseAddressFromArtifacts } from '../agents/index.ts';
import { eraseEventsNaming } from '../events/events.service.ts';
import { eraseOutreachRecordsOf } from '../outreach/index.ts';
import { eraseValidationResults } from '../validation/index.ts';

export type ErasedCounts = z.infer<typeof privacyEraseOutput>['erased'];

/** The person a request is about: the address, and the workspace's leads that had it (found before any is erased). */
export interface Subject {
  workspaceId: string;
  address: string;
  leadIds: string[];
}

/** Activity entries in an export (the lead activity feed's, once it is merged in). */
export type ActivityEntry = Record<string, unknown>;

/**
 * Each domain's erasure of what names the person, through its own front door, run in this order before their leads
 * are deleted (the leads go last, so what refers to them is found by their ids).
 */
export const erasures: Array<(subject: Subject) => Promise<Partial<ErasedCounts>>> = [
  (s) => eraseOutreachRecordsOf(s.workspaceId, s.address, s.leadIds),
  async (s) => ({ validation_results: await eraseValidationResults(s.workspaceId, s.address) }),
  async (s) => ({ artifact_rows: await eraseAddressFromArtifacts(s.workspaceId, s.address) }),
  // The event history (webhooks' payloads) naming it: not a kind of its own in the answer.
  async (s) => (await eraseEventsNaming(s.workspaceId, s.address), {}),
  // MERGE HOOK (lead activity feed, built on another branch): its erasure is added here, one call answering
  // `{ activity: <entries deleted> }` for `s.leadIds` (and `s.address`), e.g.
  //   async (s) => ({ activity: await eraseLeadActivity(s.workspaceId, s.leadIds) }),
];

/**
 * The person's activity entries for an export.
 * MERGE HOOK (lead activity feed, another branch): answer its entries for `subject.leadIds` here; none until then.
 */
export async function activityOf(subject: Subject): Promise<ActivityEntry[]> {
  void subject;
  return [];
}
