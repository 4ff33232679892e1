import { router } from '../trpc/init.ts';
import { addMemberProcedure } from './add-member.ts';
import { listMembersProcedure } from './list-members.ts';
import { removeMemberProcedure } from './remove-member.ts';

export const membersRouter = router({
  list: listMembersProcedure,
  add: addMemberProcedure,
  remove: removeMemberProcedure,
});
