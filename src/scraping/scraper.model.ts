import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { engines, type CrawlRules, type ExtractRules, type FollowRules } from '../../schema/scrapers.ts';

const scraperSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true, index: true },
    name: { type: String, required: true },
    engine: { type: String, enum: engines, required: true },
    extract: { type: Schema.Types.Mixed, required: true },
    follow: { type: Schema.Types.Mixed, default: null },
    crawl: { type: Schema.Types.Mixed, default: null },
    /** JSON text: schemas use `$`-keys, which stored documents cannot hold as keys on every server. */
    outputSchemaJson: { type: String, required: true },
    /** False when the schema was derived from `extract` (and is derived again when `extract` changes). */
    customSchema: { type: Boolean, default: false },
    respectRobots: { type: Boolean, default: true },
    /** Certificates are not verified on its https pages (the address guard still applies). */
    insecureTls: { type: Boolean, default: false },
    /** The folder it is filed in (folders.service), or none. */
    folderId: { type: String, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);

scraperSchema.index({ workspaceId: 1, folderId: 1 });

/** `extract`, `follow` and `crawl` are the scraper's rules (Mixed in the schema). */
export type ScraperDoc = Omit<InferRawDocTypeFromSchema<typeof scraperSchema>, 'extract' | 'follow' | 'crawl'> & {
  extract: ExtractRules;
  follow?: FollowRules | null;
  crawl?: CrawlRules | null;
};
export const ScraperModel = mongoose.model('Scraper', scraperSchema, 'scrapers');
