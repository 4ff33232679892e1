import { deleteSkillOutput, skillIdInput } from '../../schema/skills.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { deleteSkill } from './skills.service.ts';

export const deleteSkillProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'DELETE',
      path: '/api/skills/{id}',
      tags: ['Agent'],
      summary: 'Delete a skill',
      description: 'Runs already started keep its instructions.',
    },
  })
  .input(skillIdInput)
  .output(deleteSkillOutput)
  .mutation(async ({ ctx, input }) => {
    await deleteSkill(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id };
  });
