import { z } from 'zod';
import { dateTime, deletion, uuid } from './common.ts';

/** The tools every run has, and the only ones: a skill adds instructions, never access. */
export const agentTools = ['web_search', 'fetch_page', 'extract_contacts', 'save_leads', 'ask_user', 'finish'] as const;

// One emoji: a single extended grapheme cluster with an emoji presentation (flags, keycaps, ZWJ sequences and skin tones included).
const singleEmoji = (text: string) => {
  const graphemes = [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)];
  return graphemes.length === 1 && /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u.test(text);
};

export const skill = z
  .object({
    id: uuid,
    title: z.string().describe('Short name of the skill.'),
    emoji: z.string().describe('One emoji shown with the title.'),
    system_prompt: z.string().describe('Instructions added to the system prompt of runs that name the skill in `skill_ids`.'),
    tools: z
      .array(z.enum(agentTools).meta({ id: 'AgentTool', description: 'A tool an agent run may use.' }))
      .describe(
        'The tools runs with this skill may use: always the safe default set (`web_search`, `fetch_page`, `extract_contacts`, `save_leads`, `ask_user`, `finish`).',
      ),
    created_at: dateTime,
  })
  .meta({ id: 'Skill' });

export const createSkillInput = z
  .object({
    title: z.string().trim().min(1).max(80).describe('Short name, 1 to 80 characters.'),
    emoji: z.string().trim().refine(singleEmoji, 'must be exactly one emoji').describe('Exactly one emoji.'),
    system_prompt: z.string().trim().min(1).max(8_000).describe('Instructions for the agent, 1 to 8,000 characters.'),
  })
  // A skill never widens access: naming tools (or anything else) is refused, naming the field.
  .strict()
  .meta({
    examples: [
      {
        title: 'Fintech expert',
        emoji: '💶',
        system_prompt: "Prefer companies regulated by BaFin, and note their licence type in the lead's notes.",
      },
    ],
  });

export const skillIdInput = z.object({ id: uuid.describe('The skill.') });
export const skillOutput = z.object({ skill });
export const skillsOutput = z.object({ skills: z.array(skill).describe('Newest first.') });
export const deleteSkillOutput = deletion;
