/** The keys domain's front door: the owner's keys (the CLI) and how many keys the plan allows. */
export { issueOwnerKey, keyAllowance } from './keys.service.ts';
