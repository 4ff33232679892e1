import { fieldError } from '../errors/field-error.ts';

/**
 * Keyset paging of the lead list. The list is newest first (`createdAt`, then `_id`, descending); a list asked
 * for changes (`updated_after`) is oldest change first (`updatedAt`, then `_id`, ascending), so that a client
 * syncing pages up to the present. A cursor names its order and the last lead of its page, so the next page
 * starts strictly after it: every lead once while nothing changes, whatever is inserted meanwhile.
 */
export type ListOrder = 'created' | 'updated';

interface Position {
  order: ListOrder;
  at: Date;
  id: string;
}

export const orderFor = (input: { updated_after?: string }): ListOrder => (input.updated_after ? 'updated' : 'created');

export const sortFor = (order: ListOrder): Record<string, 1 | -1> =>
  order === 'created' ? { createdAt: -1, _id: -1 } : { updatedAt: 1, _id: 1 };

const timeField = (order: ListOrder) => (order === 'created' ? 'createdAt' : 'updatedAt');

/** The cursor after this lead: opaque base64url text of the order, the lead's time in ms and its id. */
export function cursorAfter(order: ListOrder, lead: { _id: string; createdAt: Date; updatedAt: Date }): string {
  const at = order === 'created' ? lead.createdAt : lead.updatedAt;
  return Buffer.from(JSON.stringify([order === 'created' ? 'c' : 'u', at.getTime(), lead._id])).toString('base64url');
}

const badCursor = (problem: string) => fieldError({ field: 'cursor', problem });

function readCursor(cursor: string): Position {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor('not a cursor this list answered (pass `next_cursor` as it came)');
  }
  const [kind, ms, id] = Array.isArray(parsed) ? parsed : [];
  if ((kind !== 'c' && kind !== 'u') || !Number.isSafeInteger(ms) || typeof id !== 'string' || id.length > 64)
    throw badCursor('not a cursor this list answered (pass `next_cursor` as it came)');
  return { order: kind === 'c' ? 'created' : 'updated', at: new Date(ms as number), id };
}

/**
 * The filter part that starts the page after the cursor's lead; 400 naming `cursor` when it was answered for the
 * other order (with `updated_after` on one page and not the next), or `offset` when both are given.
 */
export function afterCursor(cursor: string | undefined, order: ListOrder, offset: number): Record<string, unknown> {
  if (cursor === undefined) return {};
  if (offset) throw fieldError({ field: 'offset', problem: 'cannot be combined with cursor' });
  const position = readCursor(cursor);
  if (position.order !== order)
    throw badCursor(`was answered for the list ${position.order === 'updated' ? 'with' : 'without'} updated_after; keep the same filters`);
  const field = timeField(order);
  const beyond = order === 'created' ? '$lt' : '$gt';
  return { $or: [{ [field]: { [beyond]: position.at } }, { [field]: position.at, _id: { [beyond]: position.id } }] };
}
