import type { z } from 'zod';
import type { listRepliesInput, listRepliesOutput, ReplyOut } from '../../../schema/outreach/replies.ts';
import type { Principal } from '../../auth/principal.ts';
import { brandFilter } from '../../brands/index.ts';
import { workspaceMeetsPlan } from '../../workspaces/index.ts';
import { Reply, replyKinds, sentiments, type ReplyDoc } from './reply.model.ts';

type Input = z.infer<typeof listRepliesInput>;
type Output = z.infer<typeof listRepliesOutput>;

export const toReply = (doc: ReplyDoc, withSentiment: boolean): ReplyOut => ({
  id: doc._id,
  campaign_id: doc.campaignId ?? null,
  lead_id: doc.leadId ?? null,
  inbox_id: doc.inboxId,
  kind: doc.kind,
  from_email: doc.fromEmail,
  from_name: doc.fromName,
  subject: doc.subject,
  body_text: doc.bodyText,
  received_at: doc.receivedAt.toISOString(),
  bounce_type: doc.bounceType ?? null,
  bounce_code: doc.bounceCode ?? null,
  // Sentiment is a Pro and Business feature: on other plans the fields are absent, not null.
  ...(withSentiment && {
    sentiment: doc.sentiment ?? null,
    sentiment_score: doc.sentimentScore ?? null,
    intent: doc.intent ?? null,
    summary: doc.summary ?? null,
    analyzed_at: doc.analyzedAt?.toISOString() ?? null,
  }),
});

const zeroes = <K extends string>(keys: readonly K[]) => Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;

/**
 * The workspace's replies, newest first, with counts for filter chips and
 * a sentiment summary: both over every filter but `kind` and `sentiment`,
 * so each chip shows what choosing it would list.
 */
export async function listReplies(principal: Pick<Principal, 'workspaceId' | 'brandId'>, input: Input): Promise<Output> {
  const withSentiment = await workspaceMeetsPlan(principal.workspaceId, 'pro');
  const brandId = await brandFilter(principal, input.brand, 'credential');
  const base: Record<string, unknown> = { workspaceId: principal.workspaceId };
  if (brandId) base.brandId = brandId;
  if (input.campaign_id) base.campaignId = input.campaign_id;
  if (input.lead_id) base.leadId = input.lead_id;
  const filter = {
    ...base,
    ...(input.kind && { kind: input.kind }),
    ...(withSentiment && input.sentiment && { sentiment: input.sentiment }),
  };

  const [all, page] = await Promise.all([
    Reply.find(base, { kind: 1, sentiment: 1 }).lean<Array<Pick<ReplyDoc, 'kind' | 'sentiment'>>>(),
    Reply.find(filter).sort({ receivedAt: -1, _id: 1 }).skip(input.offset).limit(input.limit).lean<ReplyDoc[]>(),
  ]);
  const kindCounts = zeroes(replyKinds);
  const sentimentCounts = zeroes(sentiments);
  const analysedReplies = zeroes(sentiments);
  let total = 0;
  for (const doc of all) {
    kindCounts[doc.kind]++;
    if (doc.sentiment) sentimentCounts[doc.sentiment]++;
    if (doc.sentiment && doc.kind === 'reply') analysedReplies[doc.sentiment]++;
    if ((!input.kind || doc.kind === input.kind) && (!withSentiment || !input.sentiment || doc.sentiment === input.sentiment)) total++;
  }
  const analyzed = Object.values(analysedReplies).reduce((sum, n) => sum + n, 0);
  return {
    replies: page.map((doc) => toReply(doc, withSentiment)),
    total,
    counts: { kind: kindCounts, ...(withSentiment && { sentiment: sentimentCounts }) },
    ...(withSentiment && {
      sentiment: { analyzed, positive_rate: analyzed ? analysedReplies.positive / analyzed : 0, by_value: analysedReplies },
    }),
  };
}
