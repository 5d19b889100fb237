// Child process of crash.test.ts: commits numbered batches into an LmdbStore (the compiled dist/ code, the production
// path) until it is killed. Batch n writes
//   k/<n>/<i>  for i < keysIn(n)   distinct keys, values of varying size whose bytes derive from (n, i)
//   x/<j>      for j < 4           the same keys every time, overwritten with n
//   d/<n>, deleting d/<n-1>        exactly one d/ key exists at any commit
//   last                           n
// and reports "committed <n>" on stdout once commit() has resolved. Up to `inflight` commits run at once.
// Shared with the test: the layout helpers in crashLayout.mjs.

import { LmdbStore } from '../../../../../dist/src/main/common/db/lmdb.js';
import { batchValue, decodeN, encodeN, key, keysIn, LAST } from './crashLayout.mjs';

const [path, inflightArg] = process.argv.slice(2);
const inflight = Number(inflightArg ?? '1');
const store = new LmdbStore({ path });
const lastBytes = store.get(LAST);
let n = lastBytes === undefined ? 1 : decodeN(lastBytes) + 1;
process.stdout.write(`start ${n - 1}\n`);

const pending = new Set();
for (;;) {
  const b = store.batch();
  for (let i = 0; i < keysIn(n); i++) b.put(key(`k/${n}/${i}`), batchValue(n, i));
  for (let j = 0; j < 4; j++) b.put(key(`x/${j}`), encodeN(n));
  if (n > 1) b.delete(key(`d/${n - 1}`));
  b.put(key(`d/${n}`), encodeN(n));
  b.put(LAST, encodeN(n));
  const mine = n;
  const p = b.commit().then(() => {
    process.stdout.write(`committed ${mine}\n`);
    pending.delete(p);
  });
  pending.add(p);
  n++;
  if (pending.size >= inflight) await Promise.race(pending);
}
