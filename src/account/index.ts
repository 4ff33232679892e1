/** The account domain's front door: provisioning workspaces (the operator's CLI). */
export { createWorkspace, showWorkspace, updateWorkspace } from './account.service.ts';
