import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import type { z } from 'zod';
import { v7 as timeOrderedId } from 'uuid';
import { coreFields, customFieldTypes, leadStatuses, researchProfile, type CoreField } from '../../schema/leads.ts';
import { now } from '../clock.ts';
import { turnModel } from '../db/turns.ts';

const id = { type: String, default: () => randomUUID() };
const nullableString = { type: String, default: null };
/** One nullable string path per core field; typed per field so the lead's type is derived with them. */
const corePaths = Object.fromEntries(coreFields.map((field) => [field, nullableString])) as Record<CoreField, typeof nullableString>;

const leadSchema = new Schema(
  {
    /** Time-ordered (UUIDv7), so leads stored in the same millisecond still list newest first. */
    _id: { type: String, default: () => timeOrderedId() },
    workspaceId: { type: String, required: true },
    brandId: { type: String, required: true },
    ...corePaths,
    /** Dedupe keys: the normalized value, or a per-lead placeholder so unique indexes need no partial filter. */
    emailKey: { type: String, required: true },
    linkedinKey: { type: String, required: true },
    /** Lower-cased company, full_name, email and domain for the list's `q`. */
    searchText: { type: String, default: '' },
    score: { type: Number, default: null },
    status: { type: String, enum: leadStatuses, default: 'new' },
    custom: { type: Schema.Types.Mixed, default: {} },
    email_status: nullableString,
    email_provider: nullableString,
    email_is_role: { type: Boolean, default: null },
    email_is_free: { type: Boolean, default: null },
    email_validated_at: { type: Date, default: null },
    unsubscribedAt: { type: Date, default: null },
    /**
     * Set with `unsubscribedAt`, and removed once its `outreach.lead.unsubscribed` event is stored (whose id is
     * derived from it): a process that dies between the two leaves the event to whoever finds this.
     */
    unsubscribeEventPendingAt: { type: Date },
    archivedAt: { type: Date, default: null },
    agentRunId: nullableString,
    leadSearchId: nullableString,
  },
  { timestamps: true, versionKey: false, minimize: false },
);
// Every write of a lead sets its updatedAt (the list's `updated_after`), by the service's clock.
leadSchema.set('timestamps', { createdAt: true, updatedAt: true, currentTime: () => now() });
// The list's filters, each with the list's sort (newest first). Every view but the archived one asks for
// archivedAt null, so it comes right after the workspace; the main one ends with the fields of the filters on a
// lead's text and state (`q`, score, validation verdict, whether it has an email), so that they are matched
// against index entries in the list's order before any lead is read: a page stops at its limit, a count reads
// no lead. One index for them all: SQLite's planner, without statistics, would not tell apart two with the
// same leading fields.
leadSchema.index({ workspaceId: 1, archivedAt: 1, createdAt: -1, searchText: 1, score: 1, email_status: 1, email: 1 });
leadSchema.index({ workspaceId: 1, archivedAt: 1, status: 1, createdAt: -1 });
leadSchema.index({ workspaceId: 1, archivedAt: 1, brandId: 1, createdAt: -1 });
leadSchema.index({ workspaceId: 1, archivedAt: 1, unsubscribedAt: 1, createdAt: -1 });
// Changes in order (`updated_after`, and its keyset pages).
leadSchema.index({ workspaceId: 1, archivedAt: 1, updatedAt: 1, _id: 1 });
// An agent run's leads, archived too.
leadSchema.index({ workspaceId: 1, agentRunId: 1, createdAt: -1 });
// A domain's validated addresses, which the email finder learns the domain's pattern from.
leadSchema.index({ workspaceId: 1, domain: 1, email_status: 1 });
leadSchema.index({ workspaceId: 1, emailKey: 1 }, { unique: true });
// The unsubscriptions whose event is still to be stored (a handful at most, swept by the sending engine).
leadSchema.index({ unsubscribeEventPendingAt: 1 });
leadSchema.index({ workspaceId: 1, linkedinKey: 1 }, { unique: true });

/** `custom` holds the lead's custom column values by key (Mixed in the schema). */
export type LeadDoc = Omit<InferRawDocTypeFromSchema<typeof leadSchema>, 'custom'> & { custom: Record<string, string | null> };
export const Lead = mongoose.model('Lead', leadSchema, 'leads');

/**
 * A workspace's turn to store leads against its plan's cap (lead-cap.ts): `holder` names the
 * writer holding it, until `until`; a writer that died leaves a turn that lapses by itself.
 */
export const LeadCapTurn = turnModel('LeadCapTurn', 'lead_cap_turns');

const customFieldSchema = new Schema(
  {
    _id: id,
    workspaceId: { type: String, required: true },
    key: { type: String, required: true },
    label: { type: String, required: true },
    type: { type: String, enum: customFieldTypes, default: 'text' },
    description: { type: String, default: '' },
    auto_research: { type: Boolean, default: false },
    declared: { type: Boolean, default: true },
    position: { type: Number, required: true },
  },
  { timestamps: true, versionKey: false },
);
customFieldSchema.index({ workspaceId: 1, key: 1 }, { unique: true });
customFieldSchema.index({ workspaceId: 1, position: 1 });

export type CustomFieldDoc = InferRawDocTypeFromSchema<typeof customFieldSchema>;
export const CustomField = mongoose.model('CustomField', customFieldSchema, 'lead_custom_fields');

/** A past lead search: an import or an agent search that stored leads. */
const leadSearchSchema = new Schema(
  {
    _id: id,
    workspaceId: { type: String, required: true },
    label: { type: String, required: true },
    count: { type: Number, default: 0 },
  },
  { timestamps: true, versionKey: false },
);
leadSearchSchema.index({ workspaceId: 1, createdAt: -1 });
export type LeadSearchDoc = InferRawDocTypeFromSchema<typeof leadSearchSchema>;
export const LeadSearch = mongoose.model('LeadSearch', leadSearchSchema, 'lead_searches');

const researchProfileSchema = new Schema(
  {
    _id: id,
    workspaceId: { type: String, required: true },
    name: { type: String, required: true },
    kind: { type: String, enum: researchProfile.shape.kind.options, default: 'icp' },
    criteria: { type: Schema.Types.Mixed, default: {} },
    run_count: { type: Number, default: 0 },
    last_run_at: { type: Date, default: null },
  },
  { timestamps: true, versionKey: false, minimize: false },
);
researchProfileSchema.index({ workspaceId: 1, createdAt: -1 });
/** `criteria` is what the saved search looks for (Mixed in the schema). */
export type ResearchProfileDoc = Omit<InferRawDocTypeFromSchema<typeof researchProfileSchema>, 'criteria'> & {
  criteria: z.infer<typeof researchProfile>['criteria'];
};
export const ResearchProfile = mongoose.model('ResearchProfile', researchProfileSchema, 'research_profiles');
