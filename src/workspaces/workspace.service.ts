import { randomUUID } from 'node:crypto';
import { createApiKey } from '../auth/api-key.service.ts';
import { getBalances, setBalances, type Balances } from '../credits/credits.service.ts';
import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { createBrand } from '../brands/brands.service.ts';
import { planRules } from './plans.ts';
import { type Plan } from '../../schema/plans.ts';
import { User, Workspace, type UserDoc, type WorkspaceDoc } from './workspace.models.ts';
import { getWorkspace, workspaceTimezone } from './workspace-lookup.ts';

export async function createWorkspace(input: { name: string; plan: Plan; email: string; userName?: string }) {
  // The brand first: a workspace is never stored without its default brand.
  const workspaceId = randomUUID();
  const brand = await createBrand(workspaceId, input.name);
  const workspace = await Workspace.create({ _id: workspaceId, name: input.name, plan: input.plan, defaultBrandId: brand._id });
  const user = await User.create({
    workspaceId: workspace._id,
    email: input.email,
    name: input.userName ?? input.email.split('@')[0]!,
    role: 'owner',
  });
  await setBalances(workspace._id, { ...planRules[input.plan].credits, overage: false });
  const key = await createApiKey({ workspaceId: workspace._id, userId: user._id, name: 'Owner key', scopes: ['*'] });
  return { workspaceId: workspace._id, brandId: brand._id, userId: user._id, apiKey: key.apiKey };
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

export interface WorkspaceSummary {
  workspaceId: string;
  plan: Plan;
  crawlCredits: number;
  agentCredits: number;
  validationCredits: number;
  overage: boolean;
  leadLimit: number;
  timezone: string;
}

const summarize = (workspace: WorkspaceDoc, balances: Balances): WorkspaceSummary => ({
  workspaceId: workspace._id,
  plan: workspace.plan,
  crawlCredits: balances.crawl,
  agentCredits: balances.agent,
  validationCredits: balances.validation,
  overage: balances.overage,
  leadLimit: planRules[workspace.plan].leadLimit,
  timezone: workspaceTimezone(workspace),
});

export async function showWorkspace(workspaceId: string): Promise<WorkspaceSummary> {
  const workspace = await getWorkspace(workspaceId);
  return summarize(workspace, await getBalances(workspaceId));
}

/** Every workspace, oldest first: what an operator needs to find one (its id for the other commands). */
export async function listWorkspaces(): Promise<Array<{ workspaceId: string; name: string; plan: Plan; createdAt: string }>> {
  const workspaces = await Workspace.find({}, { name: 1, plan: 1, createdAt: 1 })
    .sort({ createdAt: 1, _id: 1 })
    .lean<Array<Pick<WorkspaceDoc, '_id' | 'name' | 'plan'> & { createdAt: Date }>>();
  return workspaces.map((w) => ({ workspaceId: w._id, name: w.name, plan: w.plan, createdAt: w.createdAt.toISOString() }));
}

export async function updateWorkspace(
  workspaceId: string,
  changes: { plan?: Plan; timezone?: string; crawl?: number; agent?: number; validation?: number; overage?: boolean },
): Promise<WorkspaceSummary> {
  const { plan, timezone, ...balanceChanges } = changes;
  const set = { ...(plan && { plan }), ...(timezone && { timezone }) };
  const workspace = Object.keys(set).length
    ? await Workspace.findByIdAndUpdate(workspaceId, { $set: set }, { returnDocument: 'after' }).lean<WorkspaceDoc>()
    : await Workspace.findById(workspaceId).lean<WorkspaceDoc>();
  if (!workspace) throw notFound('Workspace');
  const defined = Object.fromEntries(Object.entries(balanceChanges).filter(([, v]) => v !== undefined));
  const balances = Object.keys(defined).length ? await setBalances(workspaceId, defined) : await getBalances(workspaceId);
  return summarize(workspace, balances);
}
