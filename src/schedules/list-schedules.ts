import { listSchedulesOutput } from '../../schema/schedules.ts';
import { noInput } from '../../schema/common.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { listSchedules } from './schedules.service.ts';

export const listSchedulesProcedure = apiProcedure
  .meta({
    permission: 'read',
    openapi: { method: 'GET', path: '/api/schedules', tags: ['Scraping'], summary: "List the workspace's schedules" },
  })
  .input(noInput)
  .output(listSchedulesOutput)
  .query(async ({ ctx }) => ({ schedules: await listSchedules(ctx.principal.workspaceId) }));
