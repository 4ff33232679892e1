import OpenAI from 'openai';
import { z } from 'zod';
import { settings } from '../../config.ts';
import { guardedFetch } from '../../net/guarded-fetch.ts';
import { sentiments } from './reply.model.ts';
import type { Analysis } from './sentiment-heuristic.ts';

const modelAnswer = z.strictObject({
  sentiment: z.enum(sentiments).describe('positive, neutral, negative, objection, unsubscribe, ooo (out of office) or referral (points to someone else).'),
  sentiment_score: z.number().min(-1).max(1).describe('-1 hostile to 1 eager.'),
  intent: z.string().max(200).describe('What the sender wants, in a few words; for a referral, the referred address.'),
  summary: z.string().max(500).describe('One sentence.'),
});

const instructions =
  'You classify replies to cold sales emails. Answer with JSON only, matching the schema. ' +
  '`unsubscribe`: asks to stop or be removed. `ooo`: an out-of-office or other automatic absence notice. ' +
  '`referral`: points to another person; put their email address in `intent` when given. ' +
  '`objection`: a reason not to buy now (price, timing, a competitor). `negative`: not interested. `positive`: interested or wants to talk.';

/** The configured model, or null when none is (then the heuristic classifier answers). */
export function configuredModel(): { client: OpenAI; model: string } | null {
  const config = settings();
  if (!config.OPENAI_BASE_URL || !config.OPENAI_MODEL) return null;
  // Retries are the analyzer's (a reply left pending is tried again later), not the SDK's.
  const client = new OpenAI({ baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY ?? 'unset', fetch: guardedFetch, maxRetries: 0, timeout: 60_000 });
  return { client, model: config.OPENAI_MODEL };
}

/**
 * The model's analysis of a reply: structured output checked with zod,
 * asked twice at most; null when both answers were unusable. A model that
 * cannot be reached throws (the reply stays pending).
 */
export async function analyzeWithModel(
  { client, model }: NonNullable<ReturnType<typeof configuredModel>>,
  reply: { kind: string; subject: string; bodyText: string },
): Promise<Analysis | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: instructions },
        { role: 'user', content: JSON.stringify({ kind: reply.kind, subject: reply.subject, body: reply.bodyText.slice(0, 8_000) }) },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'reply_analysis', strict: true, schema: z.toJSONSchema(modelAnswer) as Record<string, unknown> } },
    });
    const parsed = modelAnswer.safeParse(parseJson(completion.choices[0]?.message?.content ?? ''));
    if (parsed.success) return { sentiment: parsed.data.sentiment, sentimentScore: parsed.data.sentiment_score, intent: parsed.data.intent, summary: parsed.data.summary };
  }
  return null;
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
