import { scheduleIdInput, scheduleOutput } from '../../schema/schedules.ts';
import { apiProcedure } from '../trpc/procedures.ts';
import { getSchedule } from './schedules.service.ts';

export const getScheduleProcedure = apiProcedure
  .meta({ permission: 'read', openapi: { method: 'GET', path: '/api/schedules/{id}', tags: ['Scraping'], summary: 'Get a schedule' } })
  .input(scheduleIdInput)
  .output(scheduleOutput)
  .query(async ({ ctx, input }) => ({ schedule: await getSchedule(ctx.principal.workspaceId, input.id) }));
