import { router } from '../trpc/init.ts';
import { createSkillProcedure } from './create-skill.ts';
import { deleteSkillProcedure } from './delete-skill.ts';
import { listSkillsProcedure } from './list-skills.ts';

export const skillsRouter = router({
  create: createSkillProcedure,
  list: listSkillsProcedure,
  delete: deleteSkillProcedure,
});
