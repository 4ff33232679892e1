import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';

const endpointSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    slug: { type: String, required: true },
    name: { type: String, required: true },
    description: { type: String, default: '' },
    method: { type: String, required: true },
    scraperId: { type: String, required: true },
    urlTemplate: { type: String, required: true },
    /** JSON texts: schemas use `$`-keys, which documents cannot hold as keys on every server. */
    paramSchemaJson: { type: String, required: true },
    /** Null: the scraper's schema. */
    outputSchemaJson: { type: String, default: null },
    freshness: { type: String, required: true },
    cacheTtlSeconds: { type: Number, required: true },
    mode: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);
endpointSchema.index({ workspaceId: 1, slug: 1 }, { unique: true });

export interface EndpointDoc {
  _id: string;
  workspaceId: string;
  slug: string;
  name: string;
  description: string;
  method: 'GET' | 'POST';
  scraperId: string;
  urlTemplate: string;
  paramSchemaJson: string;
  outputSchemaJson: string | null;
  freshness: 'cached_ok' | 'always_fresh';
  cacheTtlSeconds: number;
  mode: 'sync' | 'async';
  createdAt: Date;
  updatedAt: Date;
}

export const Endpoint = mongoose.model<EndpointDoc>('Endpoint', endpointSchema, 'published_endpoints');
