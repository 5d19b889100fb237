// tern's import in this process, for a finer split than the `tern-exec import` line gives (decode of the blocks
// ahead measured) and for CPU profiles (`node --cpu-prof`): the same pieces `tern-exec import` wires up — an LMDB database
// in a fresh datadir, the genesis written by ChainStore.initGenesis, BlockImporter with the pooled sender
// recovery — driven block by block with a timer around each step. Optionally under the V8 CPU profiler.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/main/common/logger/index.js';
import { ChainStore } from '../../src/main/exec/chain/chainStore.js';
import { parseGenesis } from '../../src/main/exec/chain/genesis.js';
import { BlockImporter } from '../../src/main/exec/chain/importer.js';
import { decodeAhead, IMPORT_SENDER_CHUNK } from '../../src/main/exec/cmd/import.js';
import { openDatabase } from '../../src/main/exec/db/open.js';
import { PooledTrieHasher } from '../../src/main/exec/hasher/pooled.js';
import { InlineSenderRecovery } from '../../src/main/exec/senders/inline.js';
import type { SenderRecovery } from '../../src/main/exec/senders/interface.js';
import { PooledSenderRecovery } from '../../src/main/exec/senders/pooled.js';
import type { ChainFiles, ChainMeta } from './params.js';
import type { ImportFigures } from './tern.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

export interface InProcessOptions {
  /** 'pooled' (the product's worker pool, default) or 'inline' (sender recovery on this thread). */
  senders?: 'pooled' | 'inline';
  /**
   * Write a V8 CPU profile of the import loop alone (the profiler `node --cpu-prof` uses, started through
   * node:inspector after set-up, so start-up work such as loading the KZG setup stays out) to this path.
   */
  profile?: string;
  /** Import only the first this many blocks (quick runs while working on the importer). */
  limit?: number;
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result as T)));
  });
}

export async function runTernInProcess(
  files: ChainFiles,
  meta: ChainMeta,
  opts: InProcessOptions = {},
): Promise<ImportFigures> {
  const datadir = mkdtempSync(join(tmpdir(), 'tern-bench-import-inproc-'));
  const logger = createLogger({ level: 'silent', format: 'json' }).logger;
  const db = await openDatabase({ datadir });
  const senders: SenderRecovery =
    opts.senders === 'inline'
      ? new InlineSenderRecovery()
      : new PooledSenderRecovery({ chunkSize: IMPORT_SENDER_CHUNK });
  let hasher: PooledTrieHasher | undefined;
  try {
    const store = new ChainStore(db);
    const { hash } = await store.initGenesis(parseGenesis(JSON.parse(readFileSync(files.genesis, 'utf8'))));
    if (hex(hash) !== meta.genesisHash) throw new Error(`genesis ${hex(hash)} is not the generator's`);
    // As `tern-exec import` does: state roots on the trie hasher's thread (--cache 4096 × --cache.trie 15 %).
    hasher = new PooledTrieHasher({ path: db.paths?.chaindata as string, cacheMB: 614, prefetch: true });
    const importer = await BlockImporter.create(store, senders, logger, { hasher });
    const data = readFileSync(files.chain);
    const split = { decode: 0, senders: 0, execution: 0, stateRoot: 0, persistence: 0, other: 0 };
    let blocks = 0;
    let txs = 0;
    let gas = 0;
    const session = opts.profile === undefined ? undefined : new Session();
    if (session !== undefined) {
      session.connect();
      await post(session, 'Profiler.enable');
      await post(session, 'Profiler.setSamplingInterval', { interval: 500 });
      await post(session, 'Profiler.start');
    }
    const started = performance.now();
    const cpu = process.cpuUsage();
    // As `tern-exec import` does: blocks decoded ahead, their senders on the pool while earlier blocks execute.
    const blocksAhead = decodeAhead(data, (list) => senders.recover(list));
    for (;;) {
      if (opts.limit !== undefined && blocks >= opts.limit) break;
      const t0 = performance.now();
      const next = blocksAhead.next();
      if (next.done === true) break;
      const { block, senders: recovered } = next.value;
      const t1 = performance.now();
      const r = await importer.importBlock(block, { senders: recovered, pipeline: true });
      const t2 = performance.now();
      if (r.status !== 'imported') throw new Error(`block ${r.number} was not imported (${r.status})`);
      split.decode += t1 - t0;
      split.senders += r.timings.senders;
      split.execution += r.timings.execution;
      split.stateRoot += r.timings.stateRoot;
      split.persistence += r.timings.persistence;
      split.other += t2 - t1 - r.timings.senders - r.timings.execution - r.timings.stateRoot - r.timings.persistence;
      blocks++;
      txs += r.txs;
      gas += Number(r.gasUsed);
    }
    const tSettle = performance.now();
    await importer.settle();
    split.persistence += performance.now() - tSettle;
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    if (session !== undefined && opts.profile !== undefined) {
      const { profile } = await post<{ profile: unknown }>(session, 'Profiler.stop');
      writeFileSync(opts.profile, JSON.stringify(profile));
      session.disconnect();
    }
    if (opts.limit === undefined && hex(store.head().hash) !== meta.headHash)
      throw new Error('in-process import ended on another head');
    const cpuSeconds = (used.user + used.system) / 1e6;
    return { blocks, txs, gas, seconds, mgasPerSec: gas / 1e6 / seconds, split, cpuSeconds };
  } finally {
    await hasher?.close();
    await senders.close();
    await db.close();
    rmSync(datadir, { recursive: true, force: true });
  }
}
