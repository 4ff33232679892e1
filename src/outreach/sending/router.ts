import { router } from '../../trpc/init.ts';
import { sendMessageProcedure } from './send-message.ts';

export const sendingRouter = router({
  send: sendMessageProcedure,
});
