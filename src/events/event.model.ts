import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { turnModel } from '../db/turns.ts';
import { eventTypes } from './event-types.ts';

/**
 * An event, its type and data stored once and never changed: the history
 * subscribers read from, and the outbox: `dueAt` is set while the event
 * waits to be handed to its subscribers, and removed once it has been.
 */
const eventSchema = new Schema(
  {
    /** Derived from the type and what the event is about, so emitting it again finds the same id. */
    _id: { type: String, required: true },
    workspaceId: { type: String, required: true },
    type: { type: String, enum: eventTypes, required: true },
    data: { type: Schema.Types.Mixed, required: true },
    /** When the dispatcher should hand the event on: when stored, or later after a subscriber failed; absent once handed on. */
    dueAt: { type: Date },
    /** Failed hand-ons so far. */
    tries: { type: Number },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false, minimize: false },
);
eventSchema.index({ workspaceId: 1, createdAt: -1 });
eventSchema.index({ dueAt: 1 });

export type EventDoc = InferRawDocTypeFromSchema<typeof eventSchema>;
export const Event = mongoose.model('Event', eventSchema, 'events');

/**
 * Which process drains the outbox (db/turns.ts): one dispatcher at a time
 * on any number of workers.
 */
export const EventDispatchTurn = turnModel('EventDispatchTurn', 'event_dispatch_turn');
