import { randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import { plans, type Plan } from './plans.ts';

const id = { type: String, default: () => randomUUID() };

const workspaceSchema = new Schema(
  {
    _id: id,
    name: { type: String, required: true },
    plan: { type: String, enum: plans, required: true },
    defaultBrandId: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);

const userSchema = new Schema(
  {
    _id: id,
    workspaceId: { type: String, required: true, index: true },
    email: { type: String, required: true },
    name: { type: String, required: true },
    role: { type: String, enum: ['owner', 'member'], default: 'member' },
  },
  { timestamps: true, versionKey: false },
);

const brandSchema = new Schema(
  {
    _id: id,
    workspaceId: { type: String, required: true, index: true },
    name: { type: String, required: true },
  },
  { timestamps: true, versionKey: false },
);

export interface WorkspaceDoc {
  _id: string;
  name: string;
  plan: Plan;
  defaultBrandId: string;
  createdAt: Date;
}
export interface UserDoc {
  _id: string;
  workspaceId: string;
  email: string;
  name: string;
  role: 'owner' | 'member';
  createdAt: Date;
}
export interface BrandDoc {
  _id: string;
  workspaceId: string;
  name: string;
}

export const Workspace = mongoose.model<WorkspaceDoc>('Workspace', workspaceSchema, 'workspaces');
export const User = mongoose.model<UserDoc>('User', userSchema, 'users');
export const Brand = mongoose.model<BrandDoc>('Brand', brandSchema, 'brands');
