import { randomUUID } from 'node:crypto';
import { createApiKey } from '../auth/api-key.service.ts';
import { createBrand } from '../brands/index.ts';
import { getBalances, setBalances, type Balances } from '../credits/index.ts';
import { notFound } from '../errors/app-error.ts';
import { type Plan } from '../../schema/plans.ts';
import { getWorkspace, insertWorkspace, planRules, setWorkspaceSettings, workspaceTimezone } from '../workspaces/index.ts';

/**
 * A workspace as the operator provisions it: the workspace and its owner,
 * its default brand, its credits and the owner's key. It spans the
 * workspaces, brands and credits domains, which read workspaces
 * themselves, so it lives above them.
 */

export async function createWorkspace(input: { name: string; plan: Plan; email: string; userName?: string }) {
  // The brand first: a workspace is never stored without its default brand.
  const id = randomUUID();
  const brand = await createBrand(id, input.name);
  const { workspaceId, userId } = await insertWorkspace({ ...input, id, defaultBrandId: brand._id });
  await setBalances(workspaceId, { ...planRules[input.plan].credits, overage: false });
  const key = await createApiKey({ workspaceId, userId, name: 'Owner key', scopes: ['*'] });
  return { workspaceId, brandId: brand._id, userId, apiKey: key.apiKey };
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

type Workspace = Awaited<ReturnType<typeof getWorkspace>>;

const summarize = (workspace: Workspace, balances: Balances): WorkspaceSummary => ({
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

export async function updateWorkspace(
  workspaceId: string,
  changes: { plan?: Plan; timezone?: string; crawl?: number; agent?: number; validation?: number; overage?: boolean },
): Promise<WorkspaceSummary> {
  const { plan, timezone, ...balanceChanges } = changes;
  const workspace = await setWorkspaceSettings(workspaceId, { ...(plan && { plan }), ...(timezone && { timezone }) });
  if (!workspace) throw notFound('Workspace');
  const defined = Object.fromEntries(Object.entries(balanceChanges).filter(([, v]) => v !== undefined));
  const balances = Object.keys(defined).length ? await setBalances(workspaceId, defined) : await getBalances(workspaceId);
  return summarize(workspace, balances);
}
