import { randomUUID } from 'node:crypto';
import mongoose, { Schema, type InferRawDocTypeFromSchema } from 'mongoose';
import { plans } from '../../schema/plans.ts';
import { turnModel } from '../db/turns.ts';

const id = { type: String, default: () => randomUUID() };

const workspaceSchema = new Schema(
  {
    _id: id,
    name: { type: String, required: true },
    plan: { type: String, enum: plans, required: true },
    defaultBrandId: { type: String, required: true },
    /** IANA time zone the workspace's calendar days are counted in (outreach statistics); set with the admin CLI. */
    timezone: { type: String, default: 'UTC' },
  },
  { timestamps: true, versionKey: false },
);

const userSchema = new Schema(
  {
    _id: id,
    workspaceId: { type: String, required: true, index: true },
    email: { type: String, required: true },
    name: { type: String, required: true },
    role: { type: String, enum: ['owner', 'admin', 'member'], default: 'member' },
    /** The email lower-cased: a workspace has one member per address (null for users stored before it was kept). */
    emailKey: { type: String, default: null },
  },
  { timestamps: true, versionKey: false },
);
userSchema.index({ workspaceId: 1, emailKey: 1 }, { unique: true });

export type WorkspaceDoc = InferRawDocTypeFromSchema<typeof workspaceSchema>;
export type UserDoc = InferRawDocTypeFromSchema<typeof userSchema>;

export const Workspace = mongoose.model('Workspace', workspaceSchema, 'workspaces');
export const User = mongoose.model('User', userSchema, 'users');
/** The turn to add members, one document per workspace (members.service.ts). */
export const SeatTurn = turnModel('SeatTurn', 'seat_turns');
