import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { nowMs } from '../clock.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { defineRetentionRule } from '../db/retention.ts';
import { nullIfNotFound } from '../errors/app-error.ts';
import { getRun } from '../scraping/index.ts';

/** How long a call is remembered: its result can be polled, and cached when its run completes, within this time. */
export const callRetentionMs = 7 * 24 * 3600 * 1000;

/**
 * Which call of a published endpoint started which scrape run (by run id),
 * so that when the run completes its result can be cached under the call's
 * parameters, and its result polled only through that endpoint.
 */
const endpointCallSchema = new Schema(
  {
    _id: { type: String, required: true }, // the run id
    workspaceId: { type: String, required: true },
    endpointId: { type: String, required: true },
    cacheKey: { type: String, required: true },
    cacheTtlSeconds: { type: Number, required: true },
    calledAt: { type: Date, required: true },
  },
  { versionKey: false },
);
export type EndpointCallDoc = InferRawDocTypeFromSchema<typeof endpointCallSchema>;
const EndpointCall = mongoose.model('EndpointCall', endpointCallSchema, 'endpoint_calls');

/**
 * Fresh results of published endpoints, by cache key (workspace, slug and
 * canonical parameters), pointing at the run that holds the data. A read
 * checks expiry; expired entries are removed by the retention rule below.
 */
const cacheSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    runId: { type: String, required: true },
    storedAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true, index: true },
  },
  { versionKey: false },
);
type CacheEntryDoc = InferRawDocTypeFromSchema<typeof cacheSchema>;
const EndpointCache = mongoose.model('EndpointCache', cacheSchema, 'endpoint_cache');

export async function recordEndpointCall(call: Omit<EndpointCallDoc, 'calledAt'>): Promise<void> {
  await EndpointCall.create({ ...call, calledAt: new Date(nowMs()) });
}

export const forgetEndpointCall = async (runId: string) => void (await EndpointCall.deleteOne({ _id: runId }));

export const findEndpointCall = (runId: string) => EndpointCall.findById(runId).lean<EndpointCallDoc>();

/** Forgets an endpoint's calls when it is deleted (their runs stay with their scraper). */
export async function forgetEndpointCalls(endpointId: string): Promise<void> {
  await EndpointCall.deleteMany({ endpointId });
}

/**
 * Caches a completed run's result under the call that started it, if a
 * published endpoint started it, unless a newer result is cached there.
 * Safe to run twice: the same entry is written again with the same times
 * (the run's).
 */
export async function cacheCompletedRun(runId: string): Promise<void> {
  const call = await findEndpointCall(runId);
  if (!call || call.cacheTtlSeconds <= 0) return;
  const run = await getRun(call.workspaceId, runId).catch(nullIfNotFound);
  if (run?.status !== 'completed' || !run.finishedAt) return;
  const entry = {
    workspaceId: call.workspaceId,
    runId,
    storedAt: run.finishedAt,
    expiresAt: new Date(run.finishedAt.getTime() + call.cacheTtlSeconds * 1000),
  };
  if ((await EndpointCache.updateOne({ _id: call.cacheKey, storedAt: { $lt: entry.storedAt } }, { $set: entry })).matchedCount) return;
  // No entry yet (or a newer one, which stays): the first writer creates it.
  await EndpointCache.create({ _id: call.cacheKey, ...entry }).catch((error: unknown) => {
    if (!isDuplicateKey(error)) throw error;
  });
}

/** The fresh entry for a key, or null. */
export async function freshCacheEntry(cacheKey: string): Promise<CacheEntryDoc | null> {
  const entry = await EndpointCache.findById(cacheKey).lean<CacheEntryDoc>();
  return entry && entry.expiresAt.getTime() > nowMs() ? entry : null;
}

/** Deletes expired cache entries and calls past their retention. */
export async function deleteExpiredCacheEntries(): Promise<number> {
  await EndpointCall.deleteMany({ calledAt: { $lt: new Date(nowMs() - callRetentionMs) } });
  return (await EndpointCache.deleteMany({ expiresAt: { $lte: new Date(nowMs()) } })).deletedCount;
}

export const endpointCacheRetention = defineRetentionRule({
  records: 'expired endpoint cache entries and old endpoint calls',
  everyMs: 5 * 60_000,
  prune: deleteExpiredCacheEntries,
});
