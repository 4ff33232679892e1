import { createScheduleInput, scheduleOutput } from '../../schema/schedules.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { createSchedule } from './schedules.service.ts';

export const createScheduleProcedure = apiProcedure
  .meta({
    permission: 'scraper',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/api/schedules',
      tags: ['Scraping'],
      summary: 'Schedule a scraper to run on a URL',
      description:
        'Runs start at the times the 5-field cron expression names in the IANA `timezone`, each carrying `schedule_id`; times missed while no worker ran give one catch-up run. A bad expression or zone is 400 naming `cron` or `timezone`; a scraper not in the workspace 404 naming `scraper_id`.',
    },
  })
  .input(createScheduleInput)
  .output(scheduleOutput)
  .mutation(async ({ ctx, input }) => ({ schedule: await createSchedule(ctx.principal.workspaceId, input) }));
