import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';

/** A folder scrapers are filed in (a scraper's `folderId`); names are unique in a workspace. */
const folderSchema = new Schema(
  {
    _id: { type: String, default: () => randomUUID() },
    workspaceId: { type: String, required: true },
    name: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);
folderSchema.index({ workspaceId: 1, name: 1 }, { unique: true });

export type FolderDoc = InferRawDocTypeFromSchema<typeof folderSchema>;
export const Folder = mongoose.model('Folder', folderSchema, 'folders');
