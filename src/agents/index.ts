/** The agents domain's front door: running a run (the worker), the download route of its artifacts, and an address erased from them. */
export { requeueStrandedRuns } from './agents.service.ts';
export { artifactDownloadRoute } from './artifacts/artifact-download.route.ts';
export { runAgent } from './run/run-agent.ts';
export { giveUpRun } from './run/run-lifecycle.ts';
export { eraseAddressFromArtifacts } from './artifacts/artifact-erasure.service.ts';
