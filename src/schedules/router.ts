import { router } from '../trpc/init.ts';
import { createScheduleProcedure } from './create-schedule.ts';
import { deleteScheduleProcedure } from './delete-schedule.ts';
import { getScheduleProcedure } from './get-schedule.ts';
import { listSchedulesProcedure } from './list-schedules.ts';
import { updateScheduleProcedure } from './update-schedule.ts';

export const schedulesRouter = router({
  create: createScheduleProcedure,
  list: listSchedulesProcedure,
  get: getScheduleProcedure,
  update: updateScheduleProcedure,
  delete: deleteScheduleProcedure,
});
