import { z } from 'zod';
import { dateTime, exampleId, nullableDateTime, uuid } from '../common.ts';
import { sendMessageOutput } from './send.ts';

const kinds = ['reply', 'bounce', 'auto_reply'] as const;
const sentimentValues = ['positive', 'neutral', 'negative', 'objection', 'unsubscribe', 'ooo', 'referral'] as const;
const count = z.int().min(0);

export const listRepliesInput = z.strictObject({
  kind: z.enum(kinds).optional().describe('Only this kind: `reply`, `bounce` or `auto_reply`.'),
  sentiment: z
    .enum(sentimentValues)
    .optional()
    .describe('Only replies analysed with this sentiment (Pro and Business; ignored on other plans).'),
  campaign_id: uuid.optional().describe("Only replies to this campaign's messages."),
  lead_id: uuid.optional().describe("Only this lead's replies."),
  brand: z
    .union([z.literal('all'), uuid])
    .optional()
    .describe("A brand id, or `all` for the whole workspace (default: the credential's brand)."),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe('Replies per page, 1 to 500 (default 100).'),
  offset: z.coerce.number().int().min(0).default(0).describe('Replies to skip.'),
});

export const reply = z
  .object({
    id: uuid,
    campaign_id: uuid.nullable().describe('The campaign whose message it answers; null when it matched none.'),
    lead_id: uuid.nullable().describe('The lead it came from; null when it matched none.'),
    inbox_id: uuid.describe('The inbox it arrived in.'),
    kind: z
      .enum(kinds)
      .describe(
        '`reply`, `bounce` (delivery failure or complaint) or `auto_reply` (out of office, other automatic answers, delay notices).',
      ),
    from_email: z.string(),
    from_name: z.string(),
    subject: z.string(),
    body_text: z.string().describe("A reply's new text (quoted history removed); the whole text for other kinds."),
    received_at: dateTime,
    bounce_type: z
      .enum(['hard', 'soft'])
      .nullable()
      .describe('For bounces: `hard` (permanent) or `soft` (temporary, mailbox full); null for a complaint.'),
    bounce_code: z.string().nullable().describe('For bounces: the delivery status (`5.1.1`) or SMTP code.'),
    sentiment: z.enum(sentimentValues).nullable().optional().describe('Pro and Business only (absent otherwise); null until analysed.'),
    sentiment_score: z.number().nullable().optional().describe('-1 to 1. Pro and Business only.'),
    intent: z
      .string()
      .nullable()
      .optional()
      .describe('What the sender wants (`referral:<address>` for a referral). Pro and Business only.'),
    summary: z.string().nullable().optional().describe('One sentence. Pro and Business only.'),
    analyzed_at: nullableDateTime.optional().describe('When it was analysed. Pro and Business only.'),
  })
  .meta({ id: 'Reply' });
export type ReplyOut = z.infer<typeof reply>;

export const listRepliesOutput = z.object({
  replies: z.array(reply).describe('Newest first.'),
  total: count.describe('Replies matching every filter.'),
  counts: z
    .object({
      kind: z
        .object({ reply: count, bounce: count, auto_reply: count })
        .meta({ id: 'ReplyCountsByKind', description: 'Per kind, under every filter but `kind` and `sentiment` (for filter chips).' }),
      sentiment: z
        .record(z.enum(sentimentValues), count)
        .optional()
        .describe('Per sentiment, under the same filters. Pro and Business only.'),
    })
    .meta({ id: 'ReplyCounts', description: 'Counts for filter chips.' }),
  sentiment: z
    .object({
      analyzed: count.describe('Replies analysed so far.'),
      positive_rate: z.number().describe('Positive replies over analysed ones (0 when none).'),
      by_value: z.record(z.enum(sentimentValues), count).describe('Analysed replies per sentiment.'),
    })
    .meta({ id: 'ReplySentimentSummary' })
    .optional()
    .describe('Sentiment summary of the replies (kind `reply`) under every filter but `kind` and `sentiment`. Pro and Business only.'),
});

export const replyIdInput = z.object({ id: uuid.describe('The reply.') });

export const answerReplyInput = z
  .strictObject({
    id: uuid.describe('The reply (kind `reply`).'),
    body_html: z.string().min(1).max(100_000).describe('HTML, sanitized.'),
    body_text: z.string().min(1).max(100_000).optional().describe('Text part (default: from the HTML).'),
  })
  .meta({ examples: [{ id: exampleId, body_html: '<p>Thursday at 10 works. I will send an invite.</p>' }] });
/** As a direct send answers (one contract, one named type). */
export const answerReplyOutput = sendMessageOutput;

export const conversationMessage = z
  .object({
    direction: z.enum(['out', 'in']).describe('`out`: sent by an inbox; `in`: came back to one.'),
    kind: z
      .enum(['step', 'answer', ...kinds])
      .describe('`step` (a campaign step) or `answer` (sent through the API) going out; the reply kind coming in.'),
    message_id: z.string().nullable().describe('Its Message-ID header (null for mail that came without one).'),
    subject: z.string(),
    from: z.string().describe('The sending address.'),
    to: z.string().describe('The receiving address.'),
    at: dateTime.describe('Sent, or received.'),
    body_text: z.string().describe("The text: what went out; a reply's new text."),
  })
  .meta({ id: 'ConversationMessage' });

export const replyThreadOutput = z.object({
  reply,
  thread: z
    .array(conversationMessage)
    .describe(
      "Oldest first: every message of the reply's campaign to its lead, what came back from the lead, and answers sent through the API.",
    ),
});
