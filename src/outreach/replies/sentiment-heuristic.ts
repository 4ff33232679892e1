import type { Sentiment } from './reply.model.ts';

export interface Analysis {
  sentiment: Sentiment;
  /** -1 (hostile) to 1 (eager). */
  sentimentScore: number;
  intent: string;
  summary: string;
}

const emailPattern = /[\w.+-]+@[\w-]+(\.[\w-]+)+/;

/** Checked in this order: the first that matches decides. */
const rules: Array<{ sentiment: Sentiment; score: number; intent: string; pattern: RegExp }> = [
  {
    sentiment: 'unsubscribe',
    score: -1,
    intent: 'unsubscribe',
    pattern:
      /\b(unsubscribe|remove me|take me off|opt[ -]?out|stop (e-?mailing|contacting|writing)|do not (e-?mail|contact)|don'?t (e-?mail|contact)|abmelden|austragen)\b/i,
  },
  {
    sentiment: 'referral',
    score: 0.2,
    intent: 'referral',
    pattern:
      /\b(reach out to|contact|speak (to|with)|talk to|get in touch with|forward(ed|ing)? (this|you) to|right person is|better person)\b/i,
  },
  {
    sentiment: 'negative',
    score: -0.8,
    intent: 'not_interested',
    pattern: /\b(not interested|no,? thanks?|no thank you|not for us|we('| a)re (all )?set|kein interesse|please stop)\b/i,
  },
  {
    sentiment: 'objection',
    score: -0.3,
    intent: 'objection',
    pattern:
      /\b(too expensive|no budget|budget|already (use|have|work with)|not (a )?priority|not (the )?right time|maybe (later|next)|next (quarter|year)|circle back|reach out (again )?in)\b/i,
  },
  {
    sentiment: 'positive',
    score: 0.8,
    intent: 'interested',
    pattern:
      /\b(interested|sounds (good|great|interesting)|let'?s (talk|chat|meet|connect)|book|schedule|set up a (call|meeting)|demo|tell me more|send (me )?(more|details|info)|happy to (talk|chat)|works for me|free (on|at)|available (on|at))\b/i,
  },
];

const firstSentence = (text: string) =>
  (
    text
      .replace(/\s+/g, ' ')
      .trim()
      .match(/^.{1,200}?[.!?](\s|$)/)?.[0] ?? text.replace(/\s+/g, ' ').trim().slice(0, 200)
  ).trim();

/**
 * The classifier used when no model is configured (or the model's answer
 * was unusable twice): ordered keyword rules over the reply's new text
 * (README "Replies"). An automatic reply is `ooo`; a referral names the
 * address it points to in its intent; no rule matching is `neutral`.
 */
export function analyzeHeuristically(reply: { kind: string; bodyText: string; subject: string }): Analysis {
  const text = `${reply.subject}\n${reply.bodyText}`;
  const summary = firstSentence(reply.bodyText || reply.subject);
  if (reply.kind === 'auto_reply') return { sentiment: 'ooo', sentimentScore: 0, intent: 'out_of_office', summary };
  for (const rule of rules) {
    if (!rule.pattern.test(text)) continue;
    if (rule.sentiment === 'referral') {
      const referred = emailPattern.exec(reply.bodyText)?.[0];
      if (!referred) continue; // "contact us" alone names nobody
      return { sentiment: 'referral', sentimentScore: rule.score, intent: `referral:${referred.toLowerCase()}`, summary };
    }
    return { sentiment: rule.sentiment, sentimentScore: rule.score, intent: rule.intent, summary };
  }
  return { sentiment: 'neutral', sentimentScore: 0, intent: 'other', summary };
}
