import { z } from 'zod';
import type { ConfiguredModel } from '../../llm/configured-model.ts';
import { sentiments } from './reply.model.ts';
import type { Analysis } from './sentiment-heuristic.ts';

const modelAnswer = z.strictObject({
  sentiment: z
    .enum(sentiments)
    .describe('positive, neutral, negative, objection, unsubscribe, ooo (out of office) or referral (points to someone else).'),
  sentiment_score: z.number().min(-1).max(1).describe('-1 hostile to 1 eager.'),
  intent: z.string().max(200).describe('What the sender wants, in a few words; for a referral, the referred address.'),
  summary: z.string().max(500).describe('One sentence.'),
});

const instructions =
  'You classify replies to cold sales emails. Answer with JSON only, matching the schema. ' +
  '`unsubscribe`: asks to stop or be removed. `ooo`: an out-of-office or other automatic absence notice. ' +
  '`referral`: points to another person; put their email address in `intent` when given. ' +
  '`objection`: a reason not to buy now (price, timing, a competitor). `negative`: not interested. `positive`: interested or wants to talk.';

/**
 * The model's analysis of a reply: structured output checked with zod,
 * asked twice at most; null when both answers were unusable. A model that
 * cannot be reached throws (the reply stays pending).
 */
export async function analyzeWithModel(
  { client, model }: ConfiguredModel,
  reply: { kind: string; subject: string; bodyText: string },
): Promise<Analysis | null> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const completion = await client.chat.completions.create({
      model,
      messages: [
        { role: 'system', content: instructions },
        { role: 'user', content: JSON.stringify({ kind: reply.kind, subject: reply.subject, body: reply.bodyText.slice(0, 8_000) }) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'reply_analysis', strict: true, schema: z.toJSONSchema(modelAnswer) as Record<string, unknown> },
      },
    });
    const parsed = modelAnswer.safeParse(parseJson(completion.choices[0]?.message?.content ?? ''));
    if (parsed.success)
      return {
        sentiment: parsed.data.sentiment,
        sentimentScore: parsed.data.sentiment_score,
        intent: parsed.data.intent,
        summary: parsed.data.summary,
      };
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
