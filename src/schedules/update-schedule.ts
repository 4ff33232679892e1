import { scheduleOutput, updateScheduleInput } from '../../schema/schedules.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { updateSchedule } from './schedules.service.ts';

export const updateScheduleProcedure = apiProcedure
  .meta({
    permission: 'scraper',
    openapi: {
      method: 'PATCH',
      path: '/api/schedules/{id}',
      tags: ['Scraping'],
      summary: 'Change, pause or resume a schedule',
      description: 'A new expression, time zone or `enabled` sets the next due time afresh, from now.',
    },
  })
  .input(updateScheduleInput)
  .output(scheduleOutput)
  .mutation(async ({ ctx, input }) => ({ schedule: await updateSchedule(ctx.principal.workspaceId, input) }));
