import type { z } from 'zod';
import type { researchProfile, saveResearchProfileInput } from '../../schema/leads.ts';
import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { ResearchProfile, type ResearchProfileDoc } from './lead.models.ts';

type ProfileOut = z.infer<typeof researchProfile>;

const toProfile = (doc: ResearchProfileDoc): ProfileOut => ({
  id: doc._id,
  name: doc.name,
  kind: doc.kind,
  criteria: doc.criteria,
  run_count: doc.run_count,
  last_run_at: doc.last_run_at?.toISOString() ?? null,
  created_at: doc.createdAt.toISOString(),
});

/** Stores a saved search without running it; with `id`, replaces that profile's name and criteria in place. */
export async function saveResearchProfile(workspaceId: string, input: z.infer<typeof saveResearchProfileInput>): Promise<ProfileOut> {
  const { id, ...fields } = input;
  if (!id) return toProfile((await ResearchProfile.create({ workspaceId, ...fields })).toObject() as ResearchProfileDoc);
  if (!(await findOwned(ResearchProfile, id, workspaceId))) throw notFound('Research profile');
  const updated = await ResearchProfile.findByIdAndUpdate(id, { $set: fields }, { returnDocument: 'after' }).lean<ResearchProfileDoc>();
  return toProfile(updated!);
}

export async function listResearchProfiles(workspaceId: string): Promise<ProfileOut[]> {
  const docs = await ResearchProfile.find({ workspaceId }).sort({ createdAt: -1, _id: 1 }).lean<ResearchProfileDoc[]>();
  return docs.map(toProfile);
}

/** A workspace's profile (404 naming `field` when it is not one of its). */
export async function getResearchProfile(workspaceId: string, id: string, field = 'profile_id'): Promise<ProfileOut> {
  const doc = await findOwned(ResearchProfile, id, workspaceId);
  if (!doc) throw notFound('Research profile', field);
  return toProfile(doc);
}

/** Counts a run of the profile (run_count, last_run_at). */
export async function recordProfileRun(id: string, at: Date): Promise<void> {
  await ResearchProfile.updateOne({ _id: id }, { $inc: { run_count: 1 }, $set: { last_run_at: at } });
}
