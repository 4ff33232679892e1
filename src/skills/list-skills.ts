import { noInput } from '../../schema/common.ts';
import { skillsOutput } from '../../schema/skills.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listSkills } from './skills.service.ts';

export const listSkillsProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/skills', tags: ['Agent'], summary: "List the workspace's skills, newest first" },
  })
  .input(noInput)
  .output(skillsOutput)
  .query(async ({ ctx }) => ({ skills: await listSkills(ctx.principal.workspaceId) }));
