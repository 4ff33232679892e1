import { router } from '../../trpc/init.ts';
import { createSequenceProcedure } from './create-sequence.ts';
import { deleteSequenceProcedure } from './delete-sequence.ts';
import { listSequencesProcedure } from './list-sequences.ts';
import { updateSequenceProcedure } from './update-sequence.ts';

export const sequencesRouter = router({
  create: createSequenceProcedure,
  list: listSequencesProcedure,
  update: updateSequenceProcedure,
  delete: deleteSequenceProcedure,
});
