import { z } from 'zod';

export const uuid = z.uuid().describe('Identifier (UUID).');
export const dateTime = z.iso.datetime({ offset: true }).describe('ISO 8601 date-time.');
export const nullableDateTime = dateTime.nullable();

/** `brand=<brand_id>` narrows to one brand; `brand=all` (or no value) widens to the workspace. */
export const brandFilter = z
  .union([z.literal('all'), z.uuid()])
  .optional()
  .describe('A brand id to narrow to one brand, or `all` for the whole workspace (the default).');

export const errorBody = z
  .object({
    error: z.string().describe('Human-readable message; for a 400 it names the field.'),
    code: z.string().describe('Machine-readable code to branch on, for example `lead_limit`.'),
  })
  .catchall(z.unknown())
  .meta({ id: 'Error' });

export const okFlag = z.boolean().describe('True when the operation succeeded.');

/** For procedures that take no parameters. */
export const noInput = z.void();
