import type { Model } from 'mongoose';
import { log } from '../logger.ts';
import { isDuplicateKey } from './duplicate-key.ts';
import { inTurn } from './key-lock.ts';

/** Increments waiting for the write before them to finish, per counter document: merged into one write. */
interface PendingWrite {
  inc: Record<string, number>;
  onInsert: Record<string, unknown>;
  written: Promise<void>;
}
const pending = new Map<string, PendingWrite>();

/**
 * Adds `inc` to counter document `id`, creating it (with `onInsert`) when
 * missing; resolves once the increment is stored. MongoDB applies $inc
 * atomically. FerretDB applies an update as read-then-write, so concurrent
 * increments of one document lose counts (measured: 200 at once left 5):
 * writes to one document go one at a time in the process, on both stores
 * alike, and the increments that arrive while a write is under way are
 * merged into the next one (a hot counter costs a write per round trip,
 * not per increment). Two upserts racing to create the document: the
 * loser's insert hits the unique _id and is applied again as a plain update.
 */
export function incrementCounter(
  // Any model of counter documents, whatever its document types.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  model: Model<any>,
  id: string,
  inc: Record<string, number>,
  onInsert: Record<string, unknown> = {},
): Promise<void> {
  const key = `${model.collection.name}:${id}`;
  const waiting = pending.get(key);
  if (waiting) {
    for (const [field, n] of Object.entries(inc)) waiting.inc[field] = (waiting.inc[field] ?? 0) + n;
    waiting.onInsert = { ...onInsert, ...waiting.onInsert };
    return waiting.written;
  }
  const write: PendingWrite = { inc: { ...inc }, onInsert: { ...onInsert }, written: Promise.resolve() };
  pending.set(key, write);
  write.written = inTurn(key, async () => {
    pending.delete(key); // increments from now on wait for the next write
    await upsertIncrement(model, id, write.inc, write.onInsert);
  });
  return write.written;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function upsertIncrement(model: Model<any>, id: string, inc: Record<string, number>, onInsert: Record<string, unknown>) {
  try {
    await model.updateOne({ _id: id }, { $inc: inc, ...(Object.keys(onInsert).length && { $setOnInsert: onInsert }) }, { upsert: true });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    await model.updateOne({ _id: id }, { $inc: inc });
  }
}

/** How long increments made with incrementCounterSoon gather before they are written. */
const gatherMs = 1_000;
const gathered = new Map<string, { args: Parameters<typeof incrementCounter> }>();
let gatherTimer: NodeJS.Timeout | undefined;
const unsettled = new Set<Promise<void>>();

/**
 * incrementCounter for counts made on a hot path (the sending engine's):
 * increments gather in the process for up to a second, then each counter
 * document gets one write for all of them. `countersStored()` writes them
 * at once and waits; a process that dies first loses at most the last
 * second's increments. A failed write is logged.
 */
export function incrementCounterSoon(...[model, id, inc, onInsert = {}]: Parameters<typeof incrementCounter>): void {
  const key = `${model.collection.name}:${id}`;
  const entry = gathered.get(key);
  if (entry) {
    const sum = entry.args[2];
    for (const [field, n] of Object.entries(inc)) sum[field] = (sum[field] ?? 0) + n;
  } else {
    gathered.set(key, { args: [model, id, { ...inc }, onInsert] });
  }
  gatherTimer ??= setTimeout(writeGathered, gatherMs).unref();
}

function writeGathered() {
  clearTimeout(gatherTimer);
  gatherTimer = undefined;
  for (const { args } of gathered.values()) {
    const write = incrementCounter(...args).catch((error: unknown) => {
      log.error('a counter increment failed', { collection: args[0].collection.name, id: args[1], error: error instanceof Error ? error.message : String(error) });
    });
    unsettled.add(write);
    void write.finally(() => unsettled.delete(write));
  }
  gathered.clear();
}

/** Writes the increments gathered by incrementCounterSoon now, and resolves once every one made so far is stored (or failed and was logged). */
export async function countersStored(): Promise<void> {
  writeGathered();
  while (unsettled.size) await Promise.all(unsettled);
}
