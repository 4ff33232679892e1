import { statsInput, statsOutput } from '../../../schema/outreach/stats.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { outreachStatsReport } from './stats-report.ts';

export const getStatsProcedure = apiProcedure
  .meta({
    permission: 'read',
    errors: ['not_found'],
    openapi: {
      method: 'GET',
      path: '/api/outreach/stats',
      tags: ['Outreach'],
      summary: "Sending statistics: the last 14 days in the workspace's time zone, and totals",
      description:
        "The credential's brand by default; `brand=<id>` narrows to another (404 naming `brand` when not the workspace's), `brand=all` widens to the workspace. Days are calendar days in the workspace's time zone (`UTC` unless set with the admin CLI).",
    },
  })
  .input(statsInput)
  .output(statsOutput)
  .query(async ({ ctx, input }) => outreachStatsReport(ctx.principal, input.brand));
