import { listSuppressionsInput, listSuppressionsOutput } from '../../../schema/outreach/suppressions.ts';
import { fieldError } from '../../errors/field-error.ts';
import type { Meta } from '../../trpc/init.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { listSuppressions } from './suppressions.service.ts';

/** Who may read the list: the JSON pages here and the CSV download (suppressions-csv.route.ts) admit the same credentials. */
export const listSuppressionsAccess = { permission: 'read' } as const satisfies Partial<Meta>;

export const listSuppressionsProcedure = apiProcedure
  .meta({
    ...listSuppressionsAccess,
    // The CSV form of the 200 answer, served by suppressions-csv.route.ts beside the REST bridge.
    restMediaTypes: {
      'text/csv': {
        schema: {
          type: 'string',
          description: 'format=csv: the whole list, header row id,email,domain,reason,source,created_at (RFC 4180).',
        },
      },
    },
    openapi: {
      method: 'GET',
      path: '/api/outreach/suppressions',
      tags: ['Outreach'],
      summary: 'List the do-not-contact list, or download it as CSV',
      description:
        'Workspace-wide (every brand), newest first. Addresses and whole domains (`@acme.test`) the sending engine never writes to. ' +
        'With `format=csv` the whole list (filtered by `q`) is streamed as a `text/csv` attachment instead of a JSON page.',
    },
  })
  .input(listSuppressionsInput)
  .output(listSuppressionsOutput)
  .query(({ ctx, input }) => {
    // REST answers format=csv before the bridge; GraphQL and tRPC have no way to stream a file.
    if (input.format === 'csv')
      throw fieldError({ field: 'format', problem: 'csv is a REST download: GET /api/outreach/suppressions?format=csv' });
    return listSuppressions(ctx.principal.workspaceId, input);
  });
