import { router } from '../trpc/init.ts';
import { erasePersonalDataProcedure } from './erase-personal-data.ts';
import { exportPersonalDataProcedure } from './export-personal-data.ts';
import { listPrivacyRequestsProcedure } from './list-privacy-requests.ts';

export const privacyRouter = router({
  export: exportPersonalDataProcedure,
  erase: erasePersonalDataProcedure,
  requests: listPrivacyRequestsProcedure,
});
