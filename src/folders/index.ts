/** The folders domain's front door: whether a folder is the workspace's. */
export { assertFolderInWorkspace, folderExists } from './folder-lookup.ts';
