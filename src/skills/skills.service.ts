import type { z } from 'zod';
import { agentTools, type createSkillInput, type skill } from '../../schema/skills.ts';
import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { Skill, type SkillDoc } from './skill.model.ts';

type SkillOut = z.infer<typeof skill>;

const toSkill = (doc: SkillDoc): SkillOut => ({
  id: doc._id,
  title: doc.title,
  emoji: doc.emoji,
  system_prompt: doc.systemPrompt,
  tools: [...agentTools],
  created_at: doc.createdAt.toISOString(),
});

export async function createSkill(workspaceId: string, input: z.infer<typeof createSkillInput>): Promise<SkillOut> {
  const doc = await Skill.create({ workspaceId, title: input.title, emoji: input.emoji, systemPrompt: input.system_prompt });
  return toSkill(doc.toObject());
}

export async function listSkills(workspaceId: string): Promise<SkillOut[]> {
  const docs = await Skill.find({ workspaceId }).sort({ createdAt: -1, _id: -1 }).lean<SkillDoc[]>();
  return docs.map(toSkill);
}

export async function deleteSkill(workspaceId: string, id: string): Promise<void> {
  if (!(await findOwned(Skill, id, workspaceId))) throw notFound('Skill');
  await Skill.deleteOne({ _id: id });
}

/** The skills' instructions, in the order named; 404 naming `skill_ids` when one is not the workspace's. */
export async function skillPrompts(
  workspaceId: string,
  ids: string[],
): Promise<Array<{ title: string; emoji: string; systemPrompt: string }>> {
  const docs = await Promise.all(ids.map((id) => findOwned(Skill, id, workspaceId)));
  if (docs.some((doc) => !doc)) throw notFound('Skill', 'skill_ids');
  return docs.map((doc) => ({ title: doc!.title, emoji: doc!.emoji, systemPrompt: doc!.systemPrompt }));
}

export async function assertSkillsInWorkspace(workspaceId: string, ids: string[]): Promise<void> {
  await skillPrompts(workspaceId, ids);
}
