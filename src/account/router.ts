import { router } from '../trpc/init.ts';
import { getCurrentUser } from './get-current-user.ts';

export const accountRouter = router({
  currentUser: getCurrentUser,
});
