/**
 * `node test/support/crashing-service.ts <role>`: the service in that role (as `src/main.ts <role>`) killing itself
 * (SIGKILL) at a point a crash test names, everything else the real service's:
 * - CRASH_BEFORE_QUEUING=<job name>[:<attempt>]: as it is about to save that job (of that `attempt` in its payload);
 * - CRASH_AFTER_SETTING=<model>:<status>: once an update of that model setting `status` to it has landed.
 */
import { Job } from 'agenda';
import mongoose from 'mongoose';

const kill = () => process.kill(process.pid, 'SIGKILL');

const [jobName, attempt] = (process.env.CRASH_BEFORE_QUEUING ?? '').split(':');
const save = Job.prototype.save;
Job.prototype.save = function (this: Job) {
  const data = this.attrs.data as { attempt?: number } | undefined;
  if (this.attrs.name === jobName && (attempt === undefined || data?.attempt === Number(attempt))) kill();
  return save.call(this);
};

const [modelName, status] = (process.env.CRASH_AFTER_SETTING ?? '').split(':');
const exec = mongoose.Query.prototype.exec;
mongoose.Query.prototype.exec = async function (this: mongoose.Query<unknown, unknown>) {
  const result = await exec.call(this);
  const update = this.getUpdate() as { $set?: { status?: unknown } } | null;
  if (this.model.modelName === modelName && update?.$set?.status === status) kill();
  return result;
} as typeof exec;

await import('../../src/main.ts');
