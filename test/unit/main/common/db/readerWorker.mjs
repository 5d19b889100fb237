// Worker thread of threads.test.ts: opens the same LMDB directory through the compiled LmdbStore and reads it while
// the main thread writes.
import { parentPort, workerData } from 'node:worker_threads';
import { LmdbStore } from '../../../../../dist/src/main/common/db/lmdb.js';

const dec = new TextDecoder();
const key = new TextEncoder().encode('v');
const store = new LmdbStore({ path: workerData.path });
const snap = store.snapshot();
parentPort.postMessage({ snap: dec.decode(snap.get(key)) });
parentPort.on('message', async (msg) => {
  if (msg !== 'check') return;
  const reply = { snap: dec.decode(snap.get(key)), live: dec.decode(store.get(key)) };
  snap.release();
  await store.close();
  parentPort.postMessage(reply);
});
