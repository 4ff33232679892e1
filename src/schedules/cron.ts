import { CronExpressionParser } from 'cron-parser';
import { IANAZone } from 'luxon';
import { fieldError } from '../errors/field-error.ts';

/** A 5-field cron expression cron-parser reads, or a 400 naming `cron`. */
export function assertCron(expression: string): void {
  const fields = expression.trim().split(/\s+/).length;
  if (fields !== 5)
    throw fieldError({ field: 'cron', problem: `must have 5 fields (minute hour day-of-month month day-of-week), not ${fields}` });
  try {
    CronExpressionParser.parse(expression, { tz: 'UTC', strict: false });
  } catch (error) {
    throw fieldError({ field: 'cron', problem: (error as Error).message });
  }
}

/** An IANA time zone name, or a 400 naming `timezone`. */
export function assertTimezone(timezone: string): void {
  if (!IANAZone.isValidZone(timezone))
    throw fieldError({ field: 'timezone', problem: `${timezone} is not an IANA time zone (e.g. Europe/Berlin)` });
}

/** The first time after `after` that the expression names, read in `timezone`. */
export const nextDueTime = (expression: string, timezone: string, after: Date): Date =>
  CronExpressionParser.parse(expression, { tz: timezone, currentDate: after }).next().toDate();
