/**
 * `node test/support/crashing-service.ts <role>`: the service in that role (as `src/main.ts <role>`) killing itself
 * (SIGKILL) at a point a crash test names, everything else the real service's:
 * - CRASH_BEFORE_QUEUING=<job name>[:<attempt>]: as it is about to save that job (of that `attempt` in its payload);
 * - CRASH_AFTER_SETTING=<model>:<status>: once an update of that model setting `status` to it has landed;
 * - CRASH_AFTER_SETTING_FIELD=<model>:<field>: once an update of that model setting `field` to a value (not null) has landed;
 * - CRASH_BEFORE_UNSETTING=<model>:<field>: as it is about to run an update of that model unsetting `field`.
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
const [fieldModel, field] = (process.env.CRASH_AFTER_SETTING_FIELD ?? '').split(':');
const [unsetModel, unsetField] = (process.env.CRASH_BEFORE_UNSETTING ?? '').split(':');
const exec = mongoose.Query.prototype.exec;
mongoose.Query.prototype.exec = async function (this: mongoose.Query<unknown, unknown>) {
  const unset = (this.getUpdate() as { $unset?: Record<string, unknown> } | null)?.$unset;
  if (unsetField && this.model.modelName === unsetModel && unset?.[unsetField] !== undefined) kill();
  const result = await exec.call(this);
  const set = (this.getUpdate() as { $set?: Record<string, unknown> } | null)?.$set;
  if (this.model.modelName === modelName && set?.status === status) kill();
  if (field && this.model.modelName === fieldModel && set?.[field] !== undefined && set[field] !== null) kill();
  return result;
} as typeof exec;

await import('../../src/main.ts');
