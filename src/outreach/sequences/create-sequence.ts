import { createSequenceInput, sequenceOutput } from '../../../schema/outreach/sequences.ts';
import { apiProcedure } from '../../trpc/procedures.ts';
import { createSequence } from './sequences.service.ts';

export const createSequenceProcedure = apiProcedure
  .meta({
    permission: 'write',
    // not_found: brand_id not the workspace's; plan_required: variants below Pro.
    errors: ['not_found', 'plan_required'],
    openapi: {
      method: 'POST',
      path: '/api/outreach/sequences',
      tags: ['Outreach'],
      summary: 'Create a sequence',
      description: 'Answers 200 with the stored sequence (bodies sanitized). Steps with A/B variants need the Pro or Business plan.',
    },
  })
  .input(createSequenceInput)
  .output(sequenceOutput)
  .mutation(async ({ ctx, input }) => ({ sequence: await createSequence(ctx.principal, input) }));
