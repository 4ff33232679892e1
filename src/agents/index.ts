/** The agents domain's front door: running a run (the worker) and the download route of its artifacts. */
export { requeueStrandedRuns } from './agents.service.ts';
export { artifactDownloadRoute } from './artifacts/artifact-download.route.ts';
export { runAgent } from './run/run-agent.ts';
export { giveUpRun } from './run/run-lifecycle.ts';
