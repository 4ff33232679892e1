import { GraphQLError } from 'graphql';
import { dateTime } from '../../../../schema/common.ts';

const problem = 'DateTime: an ISO 8601 date-time with its offset, such as 2026-05-01T08:00:00Z or 2026-05-01T10:00:00+02:00';

/**
 * The DateTime scalar: every ISO 8601 date-time of the contracts (the
 * `*_at` fields and date-time arguments). Answered as the API stores it
 * (UTC, milliseconds); an argument is checked as the REST contract checks
 * it, and refused naming the scalar otherwise.
 */
export const dateTimeScalar = {
  description: 'An ISO 8601 date-time with its offset, e.g. `2026-05-01T08:00:00.000Z`.',
  serialize: (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value: unknown): string => {
    const parsed = dateTime.safeParse(value);
    if (!parsed.success) throw new GraphQLError(problem);
    return parsed.data;
  },
};
