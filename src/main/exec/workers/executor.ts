// BlockExecutor task module (../executor/worker.ts): one dedicated thread that owns newPayload's execution, the
// sequencer's block building (on pool candidates the coordinator sends with each build), the execution-layer sync's
// imports and the writes that move the canonical chain. It opens the coordinator's LMDB environment (lmdb-js shares
// it between the threads of a process; writers take turns on LMDB's write lock) with the ancient store read-only,
// and keeps its own ChainStore, BlockImporter (the warm flat state across blocks), BlockBuilder and block-import
// stages (sender recovery pool and trie hasher thread, started from here). Every task names the environment, so a
// replaced thread opens it again.

import { fail, ok, type TaskResult } from '../../../workers/task.js';
import { createLogger } from '../../common/logger/index.js';
import type { Block } from '../../primitives/block/block.js';
import { type BuildCandidate, candidateSource } from '../chain/buildCandidates.js';
import { BlockBuilder, type BuildAttributes, type BuiltBlock } from '../chain/builder.js';
import { BuiltBlocks } from '../chain/builtBlocks.js';
import { ChainStore, type HeadChange } from '../chain/chainStore.js';
import { importChain as importRun } from '../chain/importChain.js';
import { BlockImporter, type ImportResult } from '../chain/importer.js';
import { openStagePools, type StagePoolOptions, type StagePools } from '../chain/stagePools.js';
import { type Database, type DbPaths, openOnWorkerThread } from '../db/open.js';
import type { SenderResult } from '../senders/interface.js';
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
  /** Builds take pool transactions only from the candidates each build task brings. */
  readonly builder: BlockBuilder;
  /** Recent builds, for insertBuilt. */
  readonly built: BuiltBlocks;
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
    const db = openOnWorkerThread(env.paths, { readonly: false, blockCacheBytes: env.blockCacheBytes });
    const store = new ChainStore(db, env.reorgHistory === undefined ? {} : { reorgHistory: env.reorgHistory });
    store.config();
    const stages = openStagePools(db, env.stages);
    const importer = await BlockImporter.create(store, stages.senders, logger, {
      hasher: stages.hasher,
      flatState: env.flatState,
    });
    const builder = await BlockBuilder.create(store, stages.senders, { logger });
    return { key, db, store, stages, importer, builder, built: new BuiltBlocks() };
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
export function insert(input: { env: ExecutorEnv; block: Block; defer: boolean }): Promise<TaskResult<ImportResult>> {
  return guarded(async () => (await open(input.env)).importer.insertBlock(input.block, { defer: input.defer }));
}

/**
 * The execution-layer sync's chunk: consecutive blocks made canonical through this thread's pipelined importer
 * (its sender pool and trie hasher), with the senders the coordinator already recovered when it had them.
 */
export function importChain(input: {
  env: ExecutorEnv;
  parent: Uint8Array;
  blocks: Array<{ block: Block; senders: SenderResult[] | undefined }>;
}): Promise<TaskResult<Uint8Array>> {
  return guarded(async () => {
    const o = await open(input.env);
    const blocks = input.blocks.map(({ block, senders }) => ({
      block,
      senders: senders === undefined ? undefined : Promise.resolve(senders),
    }));
    return importRun(o.store, o.importer, input.parent, blocks);
  });
}

/** forkchoiceUpdated's head: ChainStore.setHead here (its head events fire on the coordinator, see worker.ts). */
export function setHead(input: {
  env: ExecutorEnv;
  hash: Uint8Array;
  deferNodes: boolean;
}): Promise<TaskResult<HeadChange>> {
  return guarded(async () => (await open(input.env)).importer.setHead(input.hash, { deferNodes: input.deferNodes }));
}

/** Waits until the last head's deferred trie nodes are in the database (../chain/trieNodeWrites.ts). */
export function nodesWritten(input: { env: ExecutorEnv }): Promise<TaskResult<null>> {
  return guarded(async () => {
    await (await open(input.env)).store.nodeWriteLanded();
    return null;
  });
}

export function setForkchoiceMarkers(input: {
  env: ExecutorEnv;
  safe: Uint8Array | undefined;
  finalized: Uint8Array | undefined;
}): Promise<TaskResult<null>> {
  return guarded(async () => {
    const o = await open(input.env);
    // The markers need no trie nodes: the head's deferred ones may still be on their way.
    await o.importer.settle({ nodes: false });
    await o.store.setForkchoiceMarkers(input.safe, input.finalized);
    return null;
  });
}

/**
 * forkchoiceUpdated with attributes: builds on a stored block with the forced transactions and, unless `noTxPool`,
 * the pool candidates the coordinator took (../chain/buildCandidates.ts); the built block stays here for insertBuilt.
 */
export function build(input: {
  env: ExecutorEnv;
  parent: Uint8Array;
  attrs: BuildAttributes;
  candidates: BuildCandidate[];
}): Promise<TaskResult<Pick<BuiltBlock, 'block' | 'hash' | 'blockValue'>>> {
  return guarded(async () => {
    const o = await open(input.env);
    await o.importer.settle();
    const built = await o.builder.build(input.parent, input.attrs, candidateSource(input.candidates));
    o.built.keep(built);
    return { block: built.block, hash: built.hash, blockValue: built.blockValue };
  });
}

/** newPayload of a block this thread built: stored without executing it again; false when not held here. */
export function insertBuilt(input: { env: ExecutorEnv; hash: Uint8Array }): Promise<TaskResult<boolean>> {
  return guarded(async () => {
    const o = await open(input.env);
    const built = o.built.get(input.hash);
    if (built === undefined) return false;
    await o.importer.settle();
    await o.importer.persistSide(built);
    return true;
  });
}

/** Waits for writes in flight, stops the stages and closes this thread's handle on the database. */
export function shutdown(_input: null): Promise<TaskResult<null>> {
  return guarded(async () => {
    if (opened !== undefined) await closeOpened(await opened);
    return null;
  });
}
