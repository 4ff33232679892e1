import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { type Plan } from '../../schema/plans.ts';
import { User, Workspace, type UserDoc, type WorkspaceDoc } from './workspace.models.ts';
import { getWorkspace } from './workspace-lookup.ts';

/**
 * Stores a new workspace with its owner (the account service provisions the
 * rest: its default brand first, its credits and the owner's key after).
 */
export async function insertWorkspace(input: {
  id: string;
  name: string;
  plan: Plan;
  defaultBrandId: string;
  email: string;
  userName?: string;
}): Promise<{ workspaceId: string; userId: string }> {
  const workspace = await Workspace.create({ _id: input.id, name: input.name, plan: input.plan, defaultBrandId: input.defaultBrandId });
  const user = await User.create({
    workspaceId: workspace._id,
    email: input.email,
    emailKey: input.email.trim().toLowerCase(),
    name: input.userName ?? input.email.split('@')[0]!,
    role: 'owner',
  });
  return { workspaceId: workspace._id, userId: user._id };
}

/** The id of the workspace's owner (404 for an unknown workspace). */
export async function workspaceOwnerId(workspaceId: string): Promise<string> {
  await getWorkspace(workspaceId);
  const owner = await User.findOne({ workspaceId, role: 'owner' }).lean<UserDoc>();
  if (!owner) throw notFound('Workspace owner');
  return owner._id;
}

export async function getUser(workspaceId: string, userId: string): Promise<UserDoc> {
  const user = await findOwned(User, userId, workspaceId);
  if (!user) throw notFound('User');
  return user;
}

/** A user by id alone (an OAuth token names its user, not the workspace); null when gone. */
export async function findUserById(userId: string): Promise<UserDoc | null> {
  return User.findById(userId).lean<UserDoc>();
}

/** Users with this email (case-insensitive): one per workspace the address belongs to. */
export async function findUsersByEmail(email: string): Promise<UserDoc[]> {
  const wanted = email.trim().toLowerCase();
  const users = await User.find({}, { email: 1, workspaceId: 1, name: 1, role: 1 }).lean<UserDoc[]>();
  return users.filter((user) => user.email.toLowerCase() === wanted);
}

/** Every workspace, oldest first: what an operator needs to find one (its id for the other commands). */
export async function listWorkspaces(): Promise<Array<{ workspaceId: string; name: string; plan: Plan; createdAt: string }>> {
  const workspaces = await Workspace.find({}, { name: 1, plan: 1, createdAt: 1 })
    .sort({ createdAt: 1, _id: 1 })
    .lean<Array<Pick<WorkspaceDoc, '_id' | 'name' | 'plan'> & { createdAt: Date }>>();
  return workspaces.map((w) => ({ workspaceId: w._id, name: w.name, plan: w.plan, createdAt: w.createdAt.toISOString() }));
}

/** Sets the workspace's plan and time zone (those given); null for an unknown workspace. */
export async function setWorkspaceSettings(workspaceId: string, set: { plan?: Plan; timezone?: string }): Promise<WorkspaceDoc | null> {
  return Object.keys(set).length
    ? Workspace.findByIdAndUpdate(workspaceId, { $set: set }, { returnDocument: 'after' }).lean<WorkspaceDoc>()
    : Workspace.findById(workspaceId).lean<WorkspaceDoc>();
}
