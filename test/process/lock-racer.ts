/**
 * One of several processes racing for a folder's lock (data-dir-lock.test.ts):
 * `node test/process/lock-racer.ts <dataDir> <start at, epoch ms> <hold ms>` waits for the common start, prints
 * `lock` or `holder <pid>`, and holds a lock it got long enough for every other racer to find it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { lockDataDir } from '../../src/db/data-dir-lock.ts';

const [dataDir, startAt, holdMs] = process.argv.slice(2) as [string, string, string];
await sleep(Math.max(0, Number(startAt) - Date.now()));
const taken = await lockDataDir(dataDir, 'racer');
if ('lock' in taken) {
  console.log('lock');
  await sleep(Number(holdMs));
  taken.lock.release();
} else {
  console.log(`holder ${taken.holder.pid}`);
}
