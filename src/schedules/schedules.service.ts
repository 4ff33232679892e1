import type { z } from 'zod';
import { v5 as nameBasedId } from 'uuid';
import type { createScheduleInput, ScheduleOut, updateScheduleInput } from '../../schema/schedules.ts';
import { now } from '../clock.ts';
import { findOwned } from '../db/find-owned.ts';
import { AppError, notFound } from '../errors/app-error.ts';
import { log } from '../logger.ts';
import { getScraperDoc, startScheduledRun } from '../scraping/index.ts';
import { assertCron, assertTimezone, nextDueTime } from './cron.ts';
import { Schedule, type ScheduleDoc } from './schedule.model.ts';

/** The namespace of scheduled runs' ids (UUIDv5 of the schedule and the due time). */
const scheduledRunNamespace = '3b0e8f5c-2d41-4c7a-9e1b-5a6f0d2c8e47';
const dueBatch = 100;

export function toSchedule(doc: ScheduleDoc): ScheduleOut {
  return {
    id: doc._id,
    scraper_id: doc.scraperId,
    url: doc.url,
    cron: doc.cron,
    timezone: doc.timezone,
    enabled: doc.enabled,
    next_run_at: doc.nextRunAt?.toISOString() ?? null,
    last_run_at: doc.lastRunAt?.toISOString() ?? null,
    last_run_id: doc.lastRunId ?? null,
  };
}

async function ownedSchedule(workspaceId: string, id: string): Promise<ScheduleDoc> {
  const doc = (await findOwned(Schedule, id, workspaceId)) as ScheduleDoc | null;
  if (!doc) throw notFound('Schedule');
  return doc;
}

export async function createSchedule(workspaceId: string, input: z.infer<typeof createScheduleInput>): Promise<ScheduleOut> {
  assertCron(input.cron);
  assertTimezone(input.timezone);
  const scraper = await getScraperDoc(workspaceId, input.scraper_id).catch((error: unknown) => {
    throw error instanceof AppError && error.code === 'not_found' ? notFound('Scraper', 'scraper_id') : error;
  });
  const doc = await Schedule.create({
    workspaceId,
    scraperId: scraper._id,
    url: input.url,
    cron: input.cron.trim(),
    timezone: input.timezone,
    options: input.options,
    enabled: input.enabled,
    nextRunAt: input.enabled ? nextDueTime(input.cron, input.timezone, now()) : null,
  });
  return toSchedule(doc.toObject() as ScheduleDoc);
}

export async function listSchedules(workspaceId: string): Promise<ScheduleOut[]> {
  const docs = await Schedule.find({ workspaceId }).sort({ createdAt: 1, _id: 1 }).lean<ScheduleDoc[]>();
  return docs.map(toSchedule);
}

export async function getSchedule(workspaceId: string, id: string): Promise<ScheduleOut> {
  return toSchedule(await ownedSchedule(workspaceId, id));
}

/** Changes apply from now: a new expression, time zone or enabling sets the next due time afresh. */
export async function updateSchedule(workspaceId: string, input: z.infer<typeof updateScheduleInput>): Promise<ScheduleOut> {
  const current = await ownedSchedule(workspaceId, input.id);
  if (input.cron !== undefined) assertCron(input.cron);
  if (input.timezone !== undefined) assertTimezone(input.timezone);
  const cron = input.cron?.trim() ?? current.cron;
  const timezone = input.timezone ?? current.timezone;
  const enabled = input.enabled ?? current.enabled;
  const timing = input.cron !== undefined || input.timezone !== undefined || input.enabled !== undefined;
  const changes: Partial<ScheduleDoc> = { cron, timezone, enabled };
  if (input.url !== undefined) changes.url = input.url;
  if (input.options !== undefined) changes.options = input.options;
  if (timing) changes.nextRunAt = enabled ? nextDueTime(cron, timezone, now()) : null;
  const updated = await Schedule.findOneAndUpdate(
    { _id: current._id, workspaceId },
    { $set: changes },
    { returnDocument: 'after' },
  ).lean<ScheduleDoc>();
  if (!updated) throw notFound('Schedule');
  return toSchedule(updated);
}

export async function deleteSchedule(workspaceId: string, id: string): Promise<void> {
  const { deletedCount } = await Schedule.deleteOne({ _id: id, workspaceId });
  if (!deletedCount) throw notFound('Schedule');
}

/**
 * Starts the run of every schedule that is due. Each due time gets exactly
 * one run however many workers look at once: the run's id is derived from
 * the schedule and the due time (a second insert of it fails), and the due
 * time is then advanced by a write conditional on it still being the one
 * read. The next due time is the first after now, so the times missed while
 * no worker ran give one catch-up run, not one each.
 */
export async function fireDueSchedules(): Promise<number> {
  const at = now();
  const due = await Schedule.find({ enabled: true, nextRunAt: { $ne: null, $lte: at } })
    .sort({ nextRunAt: 1 })
    .limit(dueBatch)
    .lean<ScheduleDoc[]>();
  let started = 0;
  for (const schedule of due) {
    try {
      if (await fireSchedule(schedule, at)) started++;
    } catch (error) {
      log.warn('a due schedule could not start its run', { scheduleId: schedule._id, error: (error as Error).message });
    }
  }
  return started;
}

async function fireSchedule(schedule: ScheduleDoc, at: Date): Promise<boolean> {
  const dueAt = schedule.nextRunAt!;
  const runId = nameBasedId(`${schedule._id}:${dueAt.toISOString()}`, scheduledRunNamespace);
  let started = false;
  try {
    started = await startScheduledRun(schedule.workspaceId, {
      scraperId: schedule.scraperId,
      url: schedule.url,
      options: schedule.options ?? {},
      scheduleId: schedule._id,
      runId,
    });
  } catch (error) {
    // Its scraper was deleted: nothing left to run, so the schedule stops.
    if (!(error instanceof AppError && error.code === 'not_found')) throw error;
    await Schedule.updateOne({ _id: schedule._id, nextRunAt: dueAt }, { $set: { enabled: false, nextRunAt: null } });
    return false;
  }
  const next = nextDueTime(schedule.cron, schedule.timezone, at);
  await Schedule.updateOne({ _id: schedule._id, nextRunAt: dueAt }, { $set: { nextRunAt: next, lastRunAt: dueAt, lastRunId: runId } });
  return started;
}
