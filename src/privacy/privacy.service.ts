import type { z } from 'zod';
import type { listPrivacyRequestsOutput, privacyEraseOutput, privacyExportOutput } from '../../schema/privacy.ts';
import type { Principal } from '../auth/principal.ts';
import { eraseLeadsWithAddress, leadsWithAddress } from '../leads/index.ts';
import { outreachRecordsOf, suppressErasedAddress } from '../outreach/index.ts';
import { validationResultsFor } from '../validation/index.ts';
import { activityOf, erasures, type ErasedCounts, type Subject } from './privacy-parts.ts';
import { PrivacyRequest, type PrivacyRequestDoc } from './privacy-request.model.ts';

type Asker = Pick<Principal, 'workspaceId' | 'userId' | 'id'>;

const audit = (asker: Asker, kind: 'export' | 'erase', counts: Record<string, number>) =>
  PrivacyRequest.create({ workspaceId: asker.workspaceId, kind, userId: asker.userId, keyId: asker.id, counts });

/** Everything the workspace holds about an address (GDPR Article 15), by kind; the request is audited, without the address. */
export async function exportAddress(asker: Asker, email: string): Promise<z.infer<typeof privacyExportOutput>> {
  const address = email.trim().toLowerCase();
  const leads = await leadsWithAddress(asker.workspaceId, address);
  const subject: Subject = { workspaceId: asker.workspaceId, address, leadIds: leads.map((lead) => lead.id) };
  const [outreach, activity, validationResults] = await Promise.all([
    outreachRecordsOf(subject.workspaceId, address, subject.leadIds),
    activityOf(subject),
    validationResultsFor(subject.workspaceId, address),
  ]);
  const found = { email: address, leads, ...outreach, activity, validation_results: validationResults };
  await audit(asker, 'export', {
    leads: leads.length,
    messages: outreach.messages.length,
    replies: outreach.replies.length,
    activity: activity.length,
    validation_results: validationResults.length,
    suppressions: outreach.suppressions.length,
  });
  return found;
}

/**
 * Erases an address (GDPR Article 17): first it goes on the do-not-contact list (source `erasure`), so nothing is sent
 * to it while the rest goes and a later import of it is never contacted; then every domain's records naming it, its
 * leads last. Statistics, counted apart, keep their counts. Safe to ask again after a failure part-way.
 */
export async function eraseAddress(asker: Asker, email: string): Promise<z.infer<typeof privacyEraseOutput>> {
  const address = email.trim().toLowerCase();
  await suppressErasedAddress(asker.workspaceId, address);
  const leads = await leadsWithAddress(asker.workspaceId, address);
  const subject: Subject = { workspaceId: asker.workspaceId, address, leadIds: leads.map((lead) => lead.id) };
  const erased: ErasedCounts = { leads: 0, messages: 0, replies: 0, activity: 0, validation_results: 0, artifact_rows: 0 };
  for (const erase of erasures) Object.assign(erased, await erase(subject));
  erased.leads = (await eraseLeadsWithAddress(asker.workspaceId, address)).length;
  await audit(asker, 'erase', erased);
  return { erased, suppressed: true };
}

const toRequest = (doc: PrivacyRequestDoc & { createdAt: Date }) => ({
  id: doc._id,
  kind: doc.kind,
  user_id: doc.userId,
  key_id: doc.keyId,
  counts: doc.counts,
  created_at: doc.createdAt.toISOString(),
});

export async function listPrivacyRequests(workspaceId: string): Promise<z.infer<typeof listPrivacyRequestsOutput>> {
  const docs = await PrivacyRequest.find({ workspaceId })
    .sort({ createdAt: -1, _id: -1 })
    .limit(100)
    .lean<Array<PrivacyRequestDoc & { createdAt: Date }>>();
  return { requests: docs.map(toRequest) };
}
