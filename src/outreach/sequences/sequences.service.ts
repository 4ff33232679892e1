import type { z } from 'zod';
import type { createSequenceInput, SequenceOut, SequenceStep, updateSequenceInput } from '../../../schema/outreach/sequences.ts';
import type { Principal } from '../../auth/principal.ts';
import { assertBrandInWorkspace, brandFilter, brandForWrite } from '../../brands/index.ts';
import { findOwned } from '../../db/find-owned.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import { assertPlan } from '../../workspaces/index.ts';
import { activeCampaignNamesUsing } from '../campaign-record/campaign-usage.ts';
import { Sequence, type SequenceDoc } from './sequence.model.ts';

type CreateInput = z.infer<typeof createSequenceInput>;
type UpdateInput = z.infer<typeof updateSequenceInput>;
type StepInput = CreateInput['steps'][number];

const toStep = (step: StepInput | SequenceDoc['steps'][number]): SequenceStep => ({
  subject: step.subject ?? '',
  body_html: step.body_html,
  wait_days: step.wait_days,
  thread_mode: step.thread_mode,
  variants: (step.variants ?? []).map((variant) => ({ subject: variant.subject ?? '', body_html: variant.body_html })),
});

const toSequence = (doc: SequenceDoc): SequenceOut => ({
  id: doc._id,
  name: doc.name,
  description: doc.description ?? null,
  steps: doc.steps.map(toStep),
  brand_id: doc.brandId,
  created_at: doc.createdAt.toISOString(),
  updated_at: doc.updatedAt.toISOString(),
});

/** A/B variants are a Pro and Business feature (403 plan_required below them); sequences without them are on every plan. */
async function assertVariantsAllowed(workspaceId: string, steps: StepInput[] | undefined) {
  if (steps?.some((step) => step.variants?.length)) await assertPlan(workspaceId, 'pro', 'plan_required');
}

async function getSequenceDoc(workspaceId: string, id: string): Promise<SequenceDoc> {
  const doc = (await findOwned(Sequence, id, workspaceId)) as SequenceDoc | null;
  if (!doc) throw notFound('Sequence');
  return doc;
}

/** Stores a sequence under the brand asked for (404 naming brand_id when not the workspace's) or the credential's. Bodies arrive sanitized by the input schema. */
export async function createSequence(principal: Pick<Principal, 'workspaceId' | 'brandId'>, input: CreateInput): Promise<SequenceOut> {
  await assertVariantsAllowed(principal.workspaceId, input.steps);
  const brandId = await brandForWrite(principal, input.brand_id);
  const doc = await Sequence.create({
    workspaceId: principal.workspaceId,
    brandId,
    name: input.name,
    description: input.description ?? null,
    steps: input.steps.map(toStep),
  });
  return toSequence(doc.toObject() as SequenceDoc);
}

/** The sequences of one brand (default the credential's) or, with `all`, the workspace's; newest first. */
export async function listSequences(
  principal: Pick<Principal, 'workspaceId' | 'brandId'>,
  brand: string | undefined,
): Promise<SequenceOut[]> {
  const brandId = await brandFilter(principal, brand, 'credential');
  const docs = await Sequence.find({ workspaceId: principal.workspaceId, ...(brandId && { brandId }) })
    .sort({ createdAt: -1, _id: -1 })
    .lean<SequenceDoc[]>();
  return docs.map(toSequence);
}

/**
 * Changes what the request gives; `steps` replaces them all. An active
 * campaign using the sequence needs nothing more: the engine reads the
 * sequence when it sends, so the new steps reach leads that have not had
 * them yet, and steps already sent stay as they were.
 */
export async function updateSequence(workspaceId: string, input: UpdateInput): Promise<SequenceOut> {
  const current = await getSequenceDoc(workspaceId, input.id);
  await assertVariantsAllowed(workspaceId, input.steps);
  const changes: Record<string, unknown> = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.description !== undefined) changes.description = input.description;
  if (input.steps !== undefined) changes.steps = input.steps.map(toStep);
  if (input.brand_id !== undefined) changes.brandId = await assertBrandInWorkspace(workspaceId, input.brand_id, 'brand_id');
  // By primary key: the filter either store answers from an index.
  const updated = await Sequence.findByIdAndUpdate(current._id, { $set: changes }, { returnDocument: 'after' }).lean<SequenceDoc>();
  if (!updated) throw notFound('Sequence');
  return toSequence(updated);
}

/** Deletes a sequence no active campaign uses; 409 naming those campaigns otherwise (pause or archive them first). */
export async function deleteSequence(workspaceId: string, id: string): Promise<void> {
  await getSequenceDoc(workspaceId, id);
  const campaigns = await activeCampaignNamesUsing(workspaceId, { sequenceId: id });
  if (campaigns.length) {
    throw new AppError('conflict', `The sequence is used by active campaigns: ${campaigns.join(', ')}. Pause or archive them first`, {
      campaigns,
    });
  }
  await Sequence.deleteOne({ _id: id });
}

/** The stored sequence, as the engine renders it at send time (404 not_found when the workspace has no such sequence). */
export async function getSequenceForSending(workspaceId: string, sequenceId: string): Promise<SequenceOut> {
  return toSequence(await getSequenceDoc(workspaceId, sequenceId));
}
