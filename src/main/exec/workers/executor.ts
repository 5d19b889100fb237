// BlockExecutor task module (../executor/worker.ts): one dedicated thread that owns newPayload's execution and the
// writes that move the canonical chain. It opens the coordinator's LMDB environment (lmdb-js shares it between the
// threads of a process; writers take turns on LMDB's write lock) with the ancient store read-only, and keeps its own
// ChainStore, BlockImporter (the warm flat state across blocks) and block-import stages (sender recovery pool and
// trie hasher thread, started from here). Every task names the environment, so a replaced thread opens it again.

import { fail, ok, type TaskResult } from '../../../workers/task.js';
import { LmdbStore } from '../../common/db/lmdb.js';
import { createLogger } from '../../common/logger/index.js';
import type { Block } from '../../primitives/block/block.js';
import { ChainStore, type HeadChange } from '../chain/chainStore.js';
import { BlockImporter, type ImportResult } from '../chain/importer.js';
import { openStagePools, type StagePoolOptions, type StagePools } from '../chain/stagePools.js';
import { BlockCache } from '../db/blockCache.js';
import { Freezer } from '../db/freezer.js';
import { Database, type DbPaths } from '../db/open.js';
import type { FlatStateOptions } from '../state/flatState.js';

/** What the executor thread opens: plain data, sent with every task. */
export interface ExecutorEnv {
  readonly paths: DbPaths;
  /** The executor's own decoded-block cache (parents, BLOCKHASH ancestry); the coordinator keeps its own. */
  readonly blockCacheBytes: number;
  readonly stages: StagePoolOptions;
  readonly flatState?: Partial<FlatStateOptions> | undefined;
  readonly reorgHistory?: number | undefined;
}

interface Opened {
  readonly key: string;
  readonly db: Database;
  readonly store: ChainStore;
  readonly stages: StagePools;
  readonly importer: BlockImporter;
}

// The thread's log lines would interleave with the coordinator's on stdout; its errors travel back with the task.
const logger = createLogger({ level: 'silent', format: 'json' }).logger;
let opened: Promise<Opened> | undefined;

async function open(env: ExecutorEnv): Promise<Opened> {
  const key = env.paths.chaindata;
  if (opened !== undefined) {
    const o = await opened;
    if (o.key === key) {
      // Reads of this task see what the coordinator committed since the last (a built block it stored, blocks the
      // execution-layer sync imported and the head it moved to them).
      o.db.kv.renewReads?.();
      o.store.reloadHead();
      return o;
    }
    await closeOpened(o);
  }
  opened = (async () => {
    const kv = new LmdbStore({ path: env.paths.chaindata });
    // The coordinator's history service appends to the ancient store; this thread only reads it.
    let ancients: Freezer | undefined;
    try {
      ancients = new Freezer({ dir: env.paths.ancientChain, readonly: true });
    } catch {
      ancients = undefined; // nothing frozen yet: every block this thread reads is in LMDB
    }
    const db = new Database('lmdb', kv, ancients, env.paths, new BlockCache({ maxBytes: env.blockCacheBytes }));
    const store = new ChainStore(db, env.reorgHistory === undefined ? {} : { reorgHistory: env.reorgHistory });
    store.config();
    const stages = openStagePools(db, env.stages);
    const importer = await BlockImporter.create(store, stages.senders, logger, {
      hasher: stages.hasher,
      flatState: env.flatState,
    });
    return { key, db, store, stages, importer };
  })();
  try {
    return await opened;
  } catch (err) {
    opened = undefined;
    throw err;
  }
}

async function closeOpened(o: Opened): Promise<void> {
  opened = undefined;
  try {
    await o.importer.settle();
  } finally {
    await o.stages.close();
    await o.db.close();
  }
}

async function guarded<T>(fn: () => Promise<T>): Promise<TaskResult<T>> {
  try {
    return ok(await fn());
  } catch (err) {
    return fail(err);
  }
}

/** newPayload: execute on the stored parent, check, store beside the chain (BlockImporter.insertBlock). */
export function insert(input: { env: ExecutorEnv; block: Block }): Promise<TaskResult<ImportResult>> {
  return guarded(async () => (await open(input.env)).importer.insertBlock(input.block));
}

/** forkchoiceUpdated's head: ChainStore.setHead here (its head events fire on the coordinator, see worker.ts). */
export function setHead(input: { env: ExecutorEnv; hash: Uint8Array }): Promise<TaskResult<HeadChange>> {
  return guarded(async () => (await open(input.env)).store.setHead(input.hash));
}

export function setForkchoiceMarkers(input: {
  env: ExecutorEnv;
  safe: Uint8Array | undefined;
  finalized: Uint8Array | undefined;
}): Promise<TaskResult<null>> {
  return guarded(async () => {
    await (await open(input.env)).store.setForkchoiceMarkers(input.safe, input.finalized);
    return null;
  });
}

/** Waits for writes in flight, stops the stages and closes this thread's handle on the database. */
export function shutdown(_input: null): Promise<TaskResult<null>> {
  return guarded(async () => {
    if (opened !== undefined) await closeOpened(await opened);
    return null;
  });
}
