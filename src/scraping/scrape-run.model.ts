import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import type { z } from 'zod';
import { runStatuses, type scrapeOptions } from '../../schema/scrape-runs.ts';

/**
 * A scrape run. While it works, its progress (pages paid, credits) lives in
 * the workspace's credit usage account, not here: the run is written when
 * it starts and when it ends, whatever its length, because an update costs
 * more as the collection grows with history.
 */
const scrapeRunSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true, index: true },
    scraperId: { type: String, required: true, index: true },
    url: { type: String, required: true },
    options: { type: Schema.Types.Mixed, default: {} },
    status: { type: String, enum: runStatuses, default: 'queued', required: true },
    /** The totals, written when the run ends. */
    pages: { type: Number, default: 0, required: true },
    pagesCharged: { type: Number, default: 0, required: true },
    creditsCharged: { type: Number, default: 0, required: true },
    overageCredits: { type: Number, default: 0, required: true },
    failures: { type: [{ _id: false, url: { type: String, required: true }, reason: { type: String, required: true } }], default: [] },
    error: { type: String, default: null },
    errorCode: { type: String, default: null },
    /** Where the result is kept (see result-store.ts), and in how many chunks. */
    resultKey: { type: String, default: null },
    resultChunks: { type: Number, default: 0, required: true },
    /** The schema the data must match (JSON text), when it is not the scraper's (a published endpoint's). */
    outputSchemaJson: { type: String, default: null },
    /** Set by a cancel request while a worker crawls: the worker, watching for it, stops and ends the run `cancelled`. */
    cancelRequestedAt: { type: Date, default: null },
    /** The schedule that started the run, or none. */
    scheduleId: { type: String, default: null },
    startedAt: { type: Date, default: null },
    finishedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);

export type ScrapeRunDoc = Omit<InferRawDocTypeFromSchema<typeof scrapeRunSchema>, 'options'> & { options: z.infer<typeof scrapeOptions> };
export const ScrapeRun = mongoose.model('ScrapeRun', scrapeRunSchema, 'scrape_runs');

/**
 * Results are kept as JSON text in chunks, read back by primary key: JSON
 * object keys may contain `.` or start with `$`, which documents cannot
 * hold as keys, and a large result may not fit in one document.
 */
const resultChunkSchema = new Schema(
  { _id: { type: String, required: true }, text: { type: String, required: true } },
  { versionKey: false },
);
export const ScrapeResultChunk = mongoose.model('ScrapeResultChunk', resultChunkSchema, 'scrape_result_chunks');
