import { AppError, notFound } from '../errors/app-error.ts';
import { meetsPlanGate } from './plans.ts';
import { type PlanGate } from '../../schema/plans.ts';
import { Workspace, type WorkspaceDoc } from './workspace.models.ts';

/**
 * Reading a workspace, for every domain that needs its plan or time zone:
 * apart from workspace.service.ts, which provisions workspaces through
 * other domains' services and so cannot be imported back by them.
 */

export async function getWorkspace(workspaceId: string): Promise<WorkspaceDoc> {
  const workspace = await Workspace.findById(workspaceId).lean<WorkspaceDoc>();
  if (!workspace) throw notFound('Workspace');
  return workspace;
}

/** The workspace's IANA time zone (`UTC` for workspaces stored before it was kept). */
export const workspaceTimezone = (workspace: Pick<WorkspaceDoc, 'timezone'>) => workspace.timezone ?? 'UTC';

/** True when the workspace's plan passes `gate` (features shown only on some plans). */
export async function workspaceMeetsPlan(workspaceId: string, gate: PlanGate): Promise<boolean> {
  return meetsPlanGate((await getWorkspace(workspaceId)).plan, gate);
}

/** The plan gates: 403 with `code` unless the workspace's plan passes `gate`. */
export async function assertPlan(workspaceId: string, gate: PlanGate, code: 'plan_required' | 'outreach_locked') {
  const { plan } = await getWorkspace(workspaceId);
  if (meetsPlanGate(plan, gate)) return;
  const needed = gate === 'paid' ? 'a paid plan' : 'the Pro or Business plan';
  throw new AppError(code, `This needs ${needed}; the workspace is on ${plan}`, { plan, required: gate });
}
