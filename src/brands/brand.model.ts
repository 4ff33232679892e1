import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

const brandSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    name: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);
brandSchema.index({ workspaceId: 1, createdAt: 1 });

export type BrandDoc = InferRawDocTypeFromSchema<typeof brandSchema>;
export const Brand = mongoose.model('Brand', brandSchema, 'brands');
