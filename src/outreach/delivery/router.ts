import { router } from '../../trpc/init.ts';
import { moveLeadsProcedure } from './move-leads.ts';
import { removeLeadsProcedure } from './remove-leads.ts';
import { sendMessageProcedure } from './send-message.ts';

export const deliveryRouter = router({
  send: sendMessageProcedure,
  remove: removeLeadsProcedure,
  move: moveLeadsProcedure,
});
