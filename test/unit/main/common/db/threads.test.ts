// Another thread opens the same LMDB environment and reads it (the design's RPC and eth_call workers): its snapshot
// stays put while the main thread commits, and its live reads see the commit.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { LmdbStore } from '../../../../../src/main/common/db/lmdb.js';
import { projectRoot } from '../../../../../src/main/common/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'tern-threads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DIST = join(projectRoot(), 'dist', 'src', 'main', 'common', 'db', 'lmdb.js');
const enc = new TextEncoder();

describe('LmdbStore across threads', () => {
  it('serves a reader thread a consistent snapshot while this thread commits', async () => {
    if (!existsSync(DIST)) throw new Error(`${DIST} is missing: build first (npx tsc -p tsconfig.build.json)`);
    const path = join(dir, 'db');
    const store = new LmdbStore({ path });
    const w = store.batch();
    w.put(enc.encode('v'), enc.encode('one'));
    await w.commit();

    const worker = new Worker(new URL('./readerWorker.mjs', import.meta.url), { workerData: { path } });
    const messages: unknown[] = [];
    let wake: () => void = () => {};
    worker.on('message', (m) => {
      messages.push(m);
      wake();
    });
    const next = async (): Promise<unknown> => {
      while (messages.length === 0) await new Promise<void>((r) => (wake = r));
      return messages.shift();
    };
    try {
      expect(await next()).toEqual({ snap: 'one' });
      const w2 = store.batch();
      w2.put(enc.encode('v'), enc.encode('two'));
      await w2.commit();
      worker.postMessage('check');
      expect(await next()).toEqual({ snap: 'one', live: 'two' });
    } finally {
      await worker.terminate();
      await store.close();
    }
  });
});
