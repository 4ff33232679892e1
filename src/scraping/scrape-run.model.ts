import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import type { runStatuses } from '../../schema/scrape-runs.ts';

const scrapeRunSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true, index: true },
    scraperId: { type: String, required: true },
    url: { type: String, required: true },
    options: { type: Schema.Types.Mixed, default: {} },
    status: { type: String, default: 'queued' },
    /** Pages already paid for: a page is charged at most once, even when a run is retried. */
    chargedPages: { type: [String], default: [] },
    pages: { type: Number, default: 0 },
    creditsCharged: { type: Number, default: 0 },
    overageCredits: { type: Number, default: 0 },
    failures: { type: [{ _id: false, url: String, reason: String }], default: [] },
    error: { type: String, default: null },
    errorCode: { type: String, default: null },
    attempts: { type: Number, default: 0 },
    resultChunks: { type: Number, default: 0 },
    /** The schema the data must match (JSON text), when it is not the scraper's (a published endpoint's). */
    outputSchemaJson: { type: String, default: null },
    /** Set for runs behind a published endpoint: where to cache the result, and for how long. */
    endpointId: { type: String, default: null },
    cacheKey: { type: String, default: null },
    cacheTtlSeconds: { type: Number, default: 0 },
    startedAt: { type: Date, default: null },
    finishedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);

export interface ScrapeRunDoc {
  _id: string;
  workspaceId: string;
  scraperId: string;
  url: string;
  options: { max_pages?: number; timeout_ms?: number; wait_for?: string };
  status: (typeof runStatuses)[number];
  chargedPages: string[];
  pages: number;
  creditsCharged: number;
  overageCredits: number;
  failures: Array<{ url: string; reason: string }>;
  error: string | null;
  errorCode: string | null;
  attempts: number;
  resultChunks: number;
  outputSchemaJson: string | null;
  endpointId: string | null;
  cacheKey: string | null;
  cacheTtlSeconds: number;
  startedAt: Date | null;
  finishedAt: Date | null;
  createdAt: Date;
}

export const ScrapeRun = mongoose.model<ScrapeRunDoc>('ScrapeRun', scrapeRunSchema, 'scrape_runs');

/**
 * Results are kept as JSON text in chunks, read back by primary key: JSON
 * object keys may contain `.` or start with `$`, which documents cannot
 * hold as keys, and a large result may not fit in one document.
 */
const resultChunkSchema = new Schema({ _id: String, text: String }, { versionKey: false });
export const ScrapeResultChunk = mongoose.model<{ _id: string; text: string }>('ScrapeResultChunk', resultChunkSchema, 'scrape_result_chunks');
