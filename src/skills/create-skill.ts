import { createSkillInput, skillOutput } from '../../schema/skills.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { createSkill } from './skills.service.ts';

export const createSkillProcedure = apiProcedure
  .meta({
    permission: 'write',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/api/skills',
      tags: ['Agent'],
      summary: 'Create a skill',
      description:
        'A reusable instruction set added to the system prompt of agent runs that name it in `skill_ids`. ' +
        "A skill never widens the agent's access: its `tools` are always the safe default set, and a request naming `tools` is a 400.",
    },
  })
  .input(createSkillInput)
  .output(skillOutput)
  .mutation(async ({ ctx, input }) => ({ skill: await createSkill(ctx.principal.workspaceId, input) }));
