import { router } from '../../trpc/init.ts';
import { listRepliesProcedure } from './list-replies.ts';

export const repliesRouter = router({
  list: listRepliesProcedure,
});
