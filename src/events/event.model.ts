import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { eventTypes } from './event-types.ts';

/** An event, inserted once and never changed: the history and the outbox subscribers read from. */
const eventSchema = new Schema(
  {
    /** Derived from the type and what the event is about, so emitting it again finds the same id. */
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    type: { type: String, enum: eventTypes, required: true },
    data: { type: Schema.Types.Mixed, required: true },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false, minimize: false },
);
eventSchema.index({ workspaceId: 1, createdAt: -1 });

export type EventDoc = InferRawDocTypeFromSchema<typeof eventSchema>;
export const Event = mongoose.model('Event', eventSchema, 'events');

/**
 * The outbox: one marker per event not yet handed to its subscribers,
 * removed once it is. It stays as small as the backlog, so the sweep that
 * hands on what a crash left behind reads little.
 */
const outboxSchema = new Schema({ _id: { type: String, required: true }, storedAt: { type: Date, required: true } }, { versionKey: false });
export const EventOutbox = mongoose.model('EventOutbox', outboxSchema, 'event_outbox');
