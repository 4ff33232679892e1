/** The workspaces domain's front door: workspaces, their plans and their users. */
export { planRules } from './plans.ts';
export { addMember, listMembers, removableMember, removeMember, seatAllowance } from './members.service.ts';
export { assertPlan, getWorkspace, workspaceMeetsPlan, workspaceTimezone } from './workspace-lookup.ts';
export {
  findUserById,
  findUsersByEmail,
  getUser,
  insertWorkspace,
  listWorkspaces,
  setWorkspaceSettings,
  workspaceOwnerId,
} from './workspace.service.ts';
