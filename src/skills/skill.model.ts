import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

const skillSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    title: { type: String, required: true },
    emoji: { type: String, required: true },
    systemPrompt: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);
skillSchema.index({ workspaceId: 1, createdAt: -1 });

export type SkillDoc = InferRawDocTypeFromSchema<typeof skillSchema>;
export const Skill = mongoose.model('Skill', skillSchema, 'skills');
