import { router } from '../../trpc/init.ts';
import { sendMessageProcedure } from './send-message.ts';

export const deliveryRouter = router({
  send: sendMessageProcedure,
});
