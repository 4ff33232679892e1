import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { importStatuses } from '../../schema/lead-imports.ts';
import { now } from '../clock.ts';

/**
 * A CSV import: its file is stored as chunks (LeadImportChunk) before this record is written, so a record always
 * has its whole file; the `leads.import` job reads the chunks in order and moves the counts as it goes.
 */
const leadImportSchema = new Schema(
  {
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    /** The credential's brand (null: the workspace's default), where the leads go. */
    brandId: { type: String, default: null },
    name: { type: String, required: true },
    status: { type: String, enum: importStatuses, default: 'queued' },
    /** The field separator found in the header row. */
    delimiter: { type: String, required: true },
    chunks: { type: Number, required: true },
    bytes: { type: Number, required: true },
    total_rows: { type: Number, required: true },
    processed_rows: { type: Number, default: 0 },
    created: { type: Number, default: 0 },
    updated: { type: Number, default: 0 },
    duplicates: { type: Number, default: 0 },
    rejected: { type: Number, default: 0 },
    errors: { type: [{ _id: false, row: Number, column: { type: String, default: null }, message: String }], default: [] },
    /** The header as read, and each column's target as applied (by header). */
    header: { type: [String], required: true },
    mapping: { type: Schema.Types.Mixed, required: true },
    on_duplicate: { type: String, enum: ['skip', 'update'], default: 'skip' },
    error: { type: String, default: null },
    finishedAt: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false, suppressReservedKeysWarning: true },
);
leadImportSchema.set('timestamps', { createdAt: true, updatedAt: true, currentTime: () => now() });
leadImportSchema.index({ workspaceId: 1, createdAt: -1 });
// The queued imports whose job a dead process never queued (stranded-work.requeue).
leadImportSchema.index({ status: 1, updatedAt: 1 });

export type LeadImportDoc = Omit<InferRawDocTypeFromSchema<typeof leadImportSchema>, 'mapping' | 'errors'> & {
  mapping: Record<string, string>;
  errors: Array<{ row: number; column: string | null; message: string }>;
};
export const LeadImport = mongoose.model('LeadImport', leadImportSchema, 'lead_imports');

/** One piece of an import's file, in order by `n`; removed once the import ends. */
const chunkSchema = new Schema(
  {
    _id: { type: String, required: true },
    importId: { type: String, required: true },
    n: { type: Number, required: true },
    data: { type: Buffer, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
chunkSchema.index({ importId: 1, n: 1 });
chunkSchema.index({ createdAt: 1 });
export const LeadImportChunk = mongoose.model('LeadImportChunk', chunkSchema, 'lead_import_chunks');

/** A row an import did not store: its cells as read and why (the rejected rows' CSV). */
const rejectionSchema = new Schema(
  {
    /** `<import id>:<row>`, so a job that runs a batch again stores each rejection once. */
    _id: { type: String, required: true },
    importId: { type: String, required: true },
    row: { type: Number, required: true },
    cells: { type: [String], required: true },
    error: { type: String, required: true },
  },
  { versionKey: false },
);
rejectionSchema.index({ importId: 1, row: 1 });
export type LeadImportRejectionDoc = InferRawDocTypeFromSchema<typeof rejectionSchema>;
export const LeadImportRejection = mongoose.model('LeadImportRejection', rejectionSchema, 'lead_import_rejections');
