import { deletion } from '../../schema/common.ts';
import { scheduleIdInput } from '../../schema/schedules.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { deleteSchedule } from './schedules.service.ts';

export const deleteScheduleProcedure = apiProcedure
  .meta({
    permission: 'write',
    openapi: {
      method: 'DELETE',
      path: '/api/schedules/{id}',
      tags: ['Scraping'],
      summary: 'Delete a schedule',
      description: 'No further runs start; the runs it started stay.',
    },
  })
  .input(scheduleIdInput)
  .output(deletion)
  .mutation(async ({ ctx, input }) => {
    await deleteSchedule(ctx.principal.workspaceId, input.id);
    return { ok: true, id: input.id };
  });
