import { router } from '../trpc/init.ts';
import { createKeyProcedure } from './create-key.ts';
import { listKeysProcedure } from './list-keys.ts';
import { revokeKeyProcedure } from './revoke-key.ts';

export const keysRouter = router({
  create: createKeyProcedure,
  list: listKeysProcedure,
  revoke: revokeKeyProcedure,
});
