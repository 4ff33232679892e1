import { router } from '../../trpc/init.ts';
import { addSuppressionsProcedure } from './add-suppressions.ts';
import { listSuppressionsProcedure } from './list-suppressions.ts';
import { removeSuppressionsProcedure } from './remove-suppressions.ts';

export const suppressionsRouter = router({
  list: listSuppressionsProcedure,
  add: addSuppressionsProcedure,
  remove: removeSuppressionsProcedure,
});
