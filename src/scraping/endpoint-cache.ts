import mongoose, { Schema } from 'mongoose';
import type { ScrapeRunDoc } from './scrape-run.model.ts';

/**
 * Fresh results of published endpoints, by cache key (workspace, slug and
 * canonical parameters), pointing at the run that holds the data. Expired
 * entries are deleted by a job: FerretDB has no TTL indexes.
 */
const cacheSchema = new Schema(
  { _id: String, workspaceId: String, runId: String, storedAt: Date, expiresAt: { type: Date, index: true } },
  { versionKey: false },
);
const EndpointCache = mongoose.model<{ _id: string; workspaceId: string; runId: string; storedAt: Date; expiresAt: Date }>(
  'EndpointCache',
  cacheSchema,
  'endpoint_cache',
);

export async function cacheResult(run: Pick<ScrapeRunDoc, '_id' | 'workspaceId' | 'cacheKey' | 'cacheTtlSeconds'>) {
  if (!run.cacheKey || run.cacheTtlSeconds <= 0) return;
  const storedAt = new Date();
  await EndpointCache.updateOne(
    { _id: run.cacheKey },
    { $set: { workspaceId: run.workspaceId, runId: run._id, storedAt, expiresAt: new Date(storedAt.getTime() + run.cacheTtlSeconds * 1000) } },
    { upsert: true },
  );
}

/** The fresh entry for a key, or null. */
export async function freshCacheEntry(cacheKey: string, now = new Date()) {
  const entry = await EndpointCache.findById(cacheKey).lean();
  return entry && entry.expiresAt > now ? entry : null;
}

export async function deleteExpiredCacheEntries(now = new Date()): Promise<number> {
  return (await EndpointCache.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
}
