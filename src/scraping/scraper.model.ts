import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import type { engines, ExtractRules, FollowRules } from '../../schema/scrapers.ts';

const scraperSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true, index: true },
    name: { type: String, required: true },
    engine: { type: String, required: true },
    extract: { type: Schema.Types.Mixed, required: true },
    follow: { type: Schema.Types.Mixed, default: null },
    /** JSON text: schemas use `$`-keys, which stored documents cannot hold as keys on every server. */
    outputSchemaJson: { type: String, required: true },
    /** False when the schema was derived from `extract` (and is derived again when `extract` changes). */
    customSchema: { type: Boolean, default: false },
    respectRobots: { type: Boolean, default: true },
  },
  { timestamps: true, versionKey: false, minimize: false },
);

export interface ScraperDoc {
  _id: string;
  workspaceId: string;
  name: string;
  engine: (typeof engines)[number];
  extract: ExtractRules;
  follow: FollowRules | null;
  outputSchemaJson: string;
  customSchema: boolean;
  respectRobots: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export const ScraperModel = mongoose.model<ScraperDoc>('Scraper', scraperSchema, 'scrapers');
