import { randomUUID } from 'node:crypto';
import type { Permission } from '../../schema/account.ts';
import { createApiKey } from '../auth/api-key.service.ts';
import { getBalances, setBalances, type Balances } from '../credits/credits.service.ts';
import { findOwned } from '../db/find-owned.ts';
import { notFound } from '../errors/app-error.ts';
import { planRules, type Plan } from './plans.ts';
import { Brand, User, Workspace, type UserDoc, type WorkspaceDoc } from './workspace.models.ts';

export async function createWorkspace(input: { name: string; plan: Plan; email: string; userName?: string }) {
  // The brand first: a workspace is never stored without its default brand.
  const workspaceId = randomUUID();
  const brand = await Brand.create({ workspaceId, name: input.name });
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

/** A new key for the workspace, held by its owner. */
export async function createOwnerKey(workspaceId: string, name: string, scopes: Permission[]) {
  await getWorkspace(workspaceId);
  const owner = await User.findOne({ workspaceId, role: 'owner' }).lean<UserDoc>();
  if (!owner) throw notFound('Workspace owner');
  return createApiKey({ workspaceId, userId: owner._id, name, scopes });
}

export async function getWorkspace(workspaceId: string): Promise<WorkspaceDoc> {
  const workspace = await Workspace.findById(workspaceId).lean<WorkspaceDoc>();
  if (!workspace) throw notFound('Workspace');
  return workspace;
}

export async function getUser(workspaceId: string, userId: string): Promise<UserDoc> {
  const user = await findOwned(User, userId, workspaceId);
  if (!user) throw notFound('User');
  return user;
}

/** A brand id that belongs to the workspace, or its default brand. */
export async function resolveBrandId(workspace: WorkspaceDoc, brandId: string | undefined): Promise<string> {
  if (!brandId) return workspace.defaultBrandId;
  if (!(await findOwned(Brand, brandId, workspace._id))) throw notFound('Brand');
  return brandId;
}

export interface WorkspaceSummary {
  workspaceId: string;
  plan: Plan;
  crawlCredits: number;
  agentCredits: number;
  validationCredits: number;
  overage: boolean;
  leadLimit: number;
}

const summarize = (workspace: WorkspaceDoc, balances: Balances): WorkspaceSummary => ({
  workspaceId: workspace._id,
  plan: workspace.plan,
  crawlCredits: balances.crawl,
  agentCredits: balances.agent,
  validationCredits: balances.validation,
  overage: balances.overage,
  leadLimit: planRules[workspace.plan].leadLimit,
});

export async function showWorkspace(workspaceId: string): Promise<WorkspaceSummary> {
  const workspace = await getWorkspace(workspaceId);
  return summarize(workspace, await getBalances(workspaceId));
}

export async function updateWorkspace(
  workspaceId: string,
  changes: { plan?: Plan; crawl?: number; agent?: number; validation?: number; overage?: boolean },
): Promise<WorkspaceSummary> {
  const { plan, ...balanceChanges } = changes;
  const workspace = plan
    ? await Workspace.findByIdAndUpdate(workspaceId, { $set: { plan } }, { returnDocument: 'after' }).lean<WorkspaceDoc>()
    : await Workspace.findById(workspaceId).lean<WorkspaceDoc>();
  if (!workspace) throw notFound('Workspace');
  const defined = Object.fromEntries(Object.entries(balanceChanges).filter(([, v]) => v !== undefined));
  const balances = Object.keys(defined).length ? await setBalances(workspaceId, defined) : await getBalances(workspaceId);
  return summarize(workspace, balances);
}
