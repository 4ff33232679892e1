import { z } from 'zod';
import type { CustomFieldType } from '../../schema/leads.ts';

/** The value to store (normalized), or what is wrong with it. */
export type CheckedValue = { value: string | null } | { problem: string };

const decimal = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const isoDate = z.iso.date();
const isoDateTimes = [z.iso.datetime({ offset: true }), z.iso.datetime({ offset: true, precision: -1 })];
const email = z.email().max(320);

/** What a column of each typed kind takes; the text also says so in the error (schema/leads.ts describes the same rules). */
const rules: Record<Exclude<CustomFieldType, 'text'>, { takes: string; check: (value: string) => string | null }> = {
  number: {
    takes: 'a finite decimal number such as 12.5, -3 or 1.5e3',
    // Stored as sent: reformatting would drop digits (`12.50`) or precision (long integers).
    check: (value) => (decimal.test(value) && Number.isFinite(Number(value)) ? value : null),
  },
  boolean: {
    takes: 'true or false',
    check: (value) => (/^(true|false)$/i.test(value) ? value.toLowerCase() : null),
  },
  date: {
    takes: 'an ISO 8601 date (2024-05-01) or date-time with a zone (2024-05-01T10:00:00Z)',
    check: (value) => {
      if (isoDate.safeParse(value).success) return value;
      if (!isoDateTimes.some((schema) => schema.safeParse(value).success)) return null;
      // One instant, one spelling: UTC, as the API's own timestamps (an instant past year 9999 in UTC is refused).
      const utc = new Date(value).toISOString();
      return /^\d{4}-/.test(utc) ? utc : null;
    },
  },
  url: {
    takes: 'an absolute http(s) URL',
    check: (value) => (/^https?:\/\//i.test(value) && URL.canParse(value) && new URL(value).hostname !== '' ? value : null),
  },
  email: {
    takes: 'an email address',
    check: (value) => (email.safeParse(value).success ? value : null),
  },
};

/**
 * Checks a custom value against its column: a declared column's type is
 * enforced (typed values are trimmed first, and booleans and date-times
 * normalized); an undeclared key, a `text` column, an empty string and null
 * take anything, unchanged.
 */
export function checkCustomValue(column: { type: CustomFieldType; declared: boolean } | undefined, value: string | null): CheckedValue {
  if (value === null || value === '' || !column?.declared || column.type === 'text') return { value };
  const rule = rules[column.type];
  const checked = rule.check(value.trim());
  return checked === null ? { problem: `a ${column.type} column takes ${rule.takes}` } : { value: checked };
}
