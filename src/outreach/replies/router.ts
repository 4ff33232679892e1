import { router } from '../../trpc/init.ts';
import { answerReplyProcedure } from './answer-reply.ts';
import { getReplyProcedure } from './get-reply.ts';
import { listRepliesProcedure } from './list-replies.ts';

export const repliesRouter = router({
  list: listRepliesProcedure,
  get: getReplyProcedure,
  answer: answerReplyProcedure,
});
