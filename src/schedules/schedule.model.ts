import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import type { z } from 'zod';
import type { scrapeOptions } from '../../schema/scrape-runs.ts';

/** A scraper run on a URL at the times a cron expression names, read in a time zone. */
const scheduleSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    scraperId: { type: String, required: true },
    url: { type: String, required: true },
    cron: { type: String, required: true },
    timezone: { type: String, required: true },
    options: { type: Schema.Types.Mixed, default: {} },
    enabled: { type: Boolean, default: true, required: true },
    /** The due time of the next run; null while disabled. Advancing it is what claims a due time (schedules.service). */
    nextRunAt: { type: Date, default: null },
    lastRunAt: { type: Date, default: null },
    lastRunId: { type: String, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);
scheduleSchema.index({ workspaceId: 1, createdAt: 1 });
scheduleSchema.index({ nextRunAt: 1 });

export type ScheduleDoc = Omit<InferRawDocTypeFromSchema<typeof scheduleSchema>, 'options'> & {
  options: Omit<z.infer<typeof scrapeOptions>, 'wait'>;
};
export const Schedule = mongoose.model('Schedule', scheduleSchema, 'scrape_schedules');
