import { handleJob } from '../../jobs/job-handler.ts';
import { fireDueSchedules } from '../schedules.service.ts';
import { schedulesFireJob } from './schedules-fire.job.ts';

export const schedulesFireHandler = handleJob(schedulesFireJob, {
  handle: async () => void (await fireDueSchedules()),
});
