import type { z } from 'zod';
import type { privacyEraseOutput } from '../../schema/privacy.ts';
import { eraseAddressFromArtifacts } from '../agents/index.ts';
import { eraseEventsNaming } from '../events/events.service.ts';
import { eraseOutreachRecordsOf } from '../outreach/index.ts';
import { activityOfLeads, deleteLeadActivity, eraseRejectedRowsNaming } from '../leads/index.ts';
import { eraseValidationResults } from '../validation/index.ts';

export type ErasedCounts = z.infer<typeof privacyEraseOutput>['erased'];

/** The person a request is about: the address, and the workspace's leads that had it (found before any is erased). */
export interface Subject {
  workspaceId: string;
  address: string;
  leadIds: string[];
}

/**
 * Each domain's erasure of what names the person, through its own front door, run in this order before their leads
 * are deleted (the leads go last, so what refers to them is found by their ids).
 */
export const erasures: Array<(subject: Subject) => Promise<Partial<ErasedCounts>>> = [
  (s) => eraseOutreachRecordsOf(s.workspaceId, s.address, s.leadIds),
  async (s) => ({ validation_results: await eraseValidationResults(s.workspaceId, s.address) }),
  async (s) => ({ artifact_rows: await eraseAddressFromArtifacts(s.workspaceId, s.address) }),
  // A CSV import's rejected rows naming it (downloadable as CSV), and the event history (webhooks' payloads) naming
  // it: not kinds of their own in the answer.
  async (s) => (await eraseRejectedRowsNaming(s.workspaceId, s.address), {}),
  async (s) => (await eraseEventsNaming(s.workspaceId, s.address), {}),
  async (s) => ({ activity: await deleteLeadActivity(s.workspaceId, s.leadIds) }),
];

/** The person's activity entries for an export: their leads' activity, newest first. */
export const activityOf = (subject: Subject) => activityOfLeads(subject.workspaceId, subject.leadIds);
