import { listSequencesInput, listSequencesOutput } from '../../../schema/outreach/sequences.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { listSequences } from './sequences.service.ts';

export const listSequencesProcedure = apiProcedure
  .meta({
    permission: 'read',
    errors: ['not_found'],
    openapi: {
      method: 'GET',
      path: '/api/outreach/sequences',
      tags: ['Outreach'],
      summary: 'List sequences',
      description: "The credential's brand by default; `brand=all` for the whole workspace. Newest first.",
    },
  })
  .input(listSequencesInput)
  .output(listSequencesOutput)
  .query(async ({ ctx, input }) => ({ sequences: await listSequences(ctx.principal, input.brand) }));
