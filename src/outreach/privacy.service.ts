import type { z } from 'zod';
import type { privacyMessage } from '../../schema/privacy.ts';
import { eraseClicksOf } from './delivery/clicks.service.ts';
import { eraseMessagesNaming, messagesNaming } from './delivery/messages.service.ts';
import { eraseRepliesNaming, repliesNaming } from './replies/reply-privacy.service.ts';
import { suppressAddress, suppressionsOfAddress } from './suppressions/suppressions.service.ts';

/**
 * Outreach's part of a privacy request for an address: the messages sent to it, the replies from it, its entry on the
 * do-not-contact list. `leadIds` are the leads that had it, whose messages and replies are theirs too.
 */
export async function outreachRecordsOf(workspaceId: string, address: string, leadIds: string[]) {
  const [messages, replies, suppressions] = await Promise.all([
    messagesNaming(workspaceId, address, leadIds),
    repliesNaming(workspaceId, address, leadIds),
    suppressionsOfAddress(workspaceId, address),
  ]);
  const toMessage = (doc: (typeof messages)[number]): z.infer<typeof privacyMessage> => ({
    id: doc._id,
    campaign_id: doc.campaignId ?? null,
    lead_id: doc.leadId ?? null,
    to: doc.to,
    subject: doc.subject,
    status: doc.status,
    sent_at: doc.sentAt?.toISOString() ?? null,
    opened_at: doc.openedAt?.toISOString() ?? null,
    created_at: (doc as { createdAt: Date }).createdAt.toISOString(),
  });
  return { messages: messages.map(toMessage), replies, suppressions };
}

/** Deletes the messages and replies (the statistics, counted apart, keep their counts); answers how many of each. */
export async function eraseOutreachRecordsOf(workspaceId: string, address: string, leadIds: string[]) {
  // The leads' clicks go too, not a kind of their own in the answer.
  await eraseClicksOf(workspaceId, leadIds);
  return {
    messages: await eraseMessagesNaming(workspaceId, address, leadIds),
    replies: await eraseRepliesNaming(workspaceId, address, leadIds),
  };
}

/** Puts an erased address on the do-not-contact list (source `erasure`); an entry it has already stays as it is. */
export async function suppressErasedAddress(workspaceId: string, address: string): Promise<void> {
  await suppressAddress(workspaceId, address, 'manual', 'erasure');
}
