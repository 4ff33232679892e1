import { storeIsFerretDb } from './connection.ts';

const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `task` after every earlier task queued under the same key has settled.
 *
 * On MongoDB the conditional single-document updates used for balances,
 * rate limits and job locks are atomic on their own. FerretDB 1.x applies
 * updates as read-then-write, so two concurrent conditional updates of one
 * document can both pass; serializing them per key inside the process
 * restores the invariant there (FerretDB deployments run one API process).
 */
export function withKeyLock<T>(key: string, task: () => Promise<T>): Promise<T> {
  return storeIsFerretDb() ? inTurn(key, task) : task();
}

/** Runs `task` after every earlier task queued under the same key has settled, whatever the store. */
export function inTurn<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return run;
}
