import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { publishedEndpoint } from '../../schema/endpoints.ts';

const { method, freshness, mode } = publishedEndpoint.shape;

const endpointSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    slug: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    method: { type: String, enum: method.options, required: true },
    scraperId: { type: String, required: true },
    urlTemplate: { type: String, required: true },
    /** JSON texts: schemas use `$`-keys, which documents cannot hold as keys on every server. */
    paramSchemaJson: { type: String, required: true },
    /** Null: the scraper's schema. */
    outputSchemaJson: { type: String, default: null },
    freshness: { type: String, enum: freshness.options, required: true },
    cacheTtlSeconds: { type: Number, required: true },
    mode: { type: String, enum: mode.options, required: true },
    /** Whether its last judged result was well formed (endpoint-health.ts). */
    health: { type: String, enum: ['ok', 'drifted'], default: 'ok', required: true },
    /** The drifted result: when, its run, what was wrong with it. */
    drift: { type: Schema.Types.Mixed, default: null },
    /** Items the last healthy result had (null: its data is not a list of items). */
    lastHealthyItems: { type: Number, default: null },
    /** When the last judged run finished: an older run judged late never overrides it. */
    healthAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false },
);
endpointSchema.index({ workspaceId: 1, slug: 1 }, { unique: true });

export type EndpointDoc = Omit<InferRawDocTypeFromSchema<typeof endpointSchema>, 'drift'> & {
  drift?: { at: Date; runId: string; errors: string[] } | null;
};
export const Endpoint = mongoose.model('Endpoint', endpointSchema, 'published_endpoints');
