// The BlockExecutor's worker twin: newPayload's execute-check-store, forkchoice heads (side chains, reorgs), the
// safe/finalized markers, the sequencer's block building and the execution-layer sync's imports run on one dedicated
// thread (../workers/executor.ts) over the same LMDB environment, so the coordinator only decodes, schedules and
// answers. After the thread moves the head, the coordinator's ChainStore drops its cached head and the head events
// fire here, where their listeners live (tx pool, filters, subscriptions). After every task the coordinator renews
// its LMDB read transaction (KVStore.renewReads): lmdb-js renews a thread's shared read transaction at most once per
// event turn, and the task's answer can arrive in the same turn as a read made before the thread's commit. The
// coordinator's block cache needs nothing: its entries are keyed by hash and every hit is confirmed against the
// database, which the thread's commits have changed.
//
// Building: the coordinator owns the tx pool, so with each build it takes the pool's candidates for the block
// (../chain/buildCandidates.ts: raw bytes and recovered senders in inclusion order, up to twice the block's gas);
// the thread builds on them and keeps the built block for `insertBuilt`. Included transactions leave the pool when
// the head moves (the head events above); a candidate that fails in the block is dropped from it and stays in the
// pool, as with the inline twin.
// Sync: `importChain` takes a chunk of downloaded blocks (with senders already recovered, if any) and imports it
// through the thread's pipelined importer; the head events fire once per chunk, for its last block.
// The memory engine cannot be shared between threads, and --vmtrace / --vmdebug hooks run in the executing
// thread: node.ts keeps the inline twin for those.
import type { Logger } from '../../common/logger/index.js';
import type { TaskMapOf } from '../../pool/interface.js';
import { PiscinaPool } from '../../pool/piscina.js';
import type { Block } from '../../primitives/block/block.js';
import { equalBytes, toHex } from '../../primitives/bytes.js';
import { type BuildCandidate, candidatesFor } from '../chain/buildCandidates.js';
import type { BuildAttributes, BuildTxSource } from '../chain/builder.js';
import { MAX_BUILT_BLOCKS } from '../chain/builtBlocks.js';
import type { ChainStore, HeadChange } from '../chain/chainStore.js';
import { headEvents } from '../chain/headEvents.js';
import type { ChainBlock } from '../chain/importChain.js';
import type { ImportResult } from '../chain/importer.js';
import { trieNodeWrites } from '../chain/trieNodeWrites.js';
import type * as executorTasks from '../workers/executor.js';
import type { ExecutorEnv } from '../workers/executor.js';
import type { BlockExecutor, BuiltPayload } from './interface.js';

type ExecutorTasks = TaskMapOf<typeof executorTasks>;

export interface WorkerExecutorDeps {
  logger?: Logger | undefined;
  /** The tx pool builds take candidates from (the coordinator's); absent: blocks hold forced transactions only. */
  txPool?: BuildTxSource | undefined;
}

export class WorkerBlockExecutor implements BlockExecutor {
  /**
   * The hashes of the thread's recent builds (as many as it keeps, ../chain/builtBlocks.ts), oldest first: a
   * payload built elsewhere, every payload of a replica, costs newPayload no round trip to the busy thread.
   */
  readonly #builtHashes = new Set<string>();

  private constructor(
    private readonly store: ChainStore,
    private readonly pool: PiscinaPool<ExecutorTasks>,
    private readonly env: ExecutorEnv,
    private readonly txSource: BuildTxSource | undefined,
  ) {
    // Queued behind any setHead already sent (one thread, tasks in order), so it covers the last deferred write.
    trieNodeWrites(store.db).setBarrier(async () => {
      await this.pool.run('nodesWritten', { env: this.env });
    });
  }

  /**
   * Starts the executor thread and opens the database there (so a database the thread cannot open fails here,
   * not on the first payload). Throws WORKER_NOT_BUILT when the compiled task module is missing.
   */
  static async start(store: ChainStore, env: ExecutorEnv, deps: WorkerExecutorDeps = {}): Promise<WorkerBlockExecutor> {
    const logger = deps.logger;
    // One thread that never idles out: it holds the warm flat state between payloads.
    const pool = new PiscinaPool<ExecutorTasks>(
      'executor',
      { threads: 1, maxQueue: 8, idleTimeoutMs: 2 ** 31 - 1 },
      logger === undefined ? {} : { logger: { warn: (obj, msg) => logger.warn(msg, { ...obj }) } },
    );
    try {
      await pool.run('setForkchoiceMarkers', { env, safe: undefined, finalized: undefined });
    } catch (err) {
      await pool.close();
      throw err;
    }
    return new WorkerBlockExecutor(store, pool, env, deps.txPool);
  }

  async insert(block: Block, opts: { defer?: boolean } = {}): Promise<ImportResult> {
    try {
      return await this.pool.run('insert', { env: this.env, block, defer: opts.defer === true });
    } finally {
      this.store.db.kv.renewReads?.();
    }
  }

  async insertBuilt(hash: Uint8Array): Promise<boolean> {
    if (!this.#builtHashes.has(toHex(hash))) return false;
    try {
      return await this.pool.run('insertBuilt', { env: this.env, hash });
    } finally {
      this.store.db.kv.renewReads?.();
    }
  }

  async importChain(parent: Uint8Array, blocks: readonly ChainBlock[]): Promise<Uint8Array> {
    // Senders whose recovery the sync started travel as results; a failed recovery is left to the thread's pool.
    const plain = await Promise.all(
      blocks.map(async ({ block, senders }) => ({
        block,
        senders: senders === undefined ? undefined : await senders.catch(() => undefined),
      })),
    );
    try {
      return await this.pool.run('importChain', { env: this.env, parent, blocks: plain });
    } finally {
      // Also after a failure: the blocks before the invalid one are imported and the head is on them.
      this.followHead();
    }
  }

  async setHead(hash: Uint8Array): Promise<HeadChange> {
    try {
      const deferNodes = trieNodeWrites(this.store.db).deferrable;
      const change = await this.pool.run('setHead', { env: this.env, hash, deferNodes });
      return change;
    } finally {
      // Also after a failure: a reorg that stopped half-way has moved the head to some block on the way.
      this.followHead();
    }
  }

  async setForkchoiceMarkers(safe: Uint8Array | undefined, finalized: Uint8Array | undefined): Promise<void> {
    // Most forkchoice updates repeat the stored markers: no trip to the thread for them.
    const stored = (m: Uint8Array | undefined, now: Uint8Array | undefined) =>
      m === undefined || (now !== undefined && equalBytes(m, now));
    if (stored(safe, this.store.safeHash()) && stored(finalized, this.store.finalizedHash())) return;
    try {
      await this.pool.run('setForkchoiceMarkers', { env: this.env, safe, finalized });
    } finally {
      this.store.db.kv.renewReads?.();
    }
  }

  async build(parent: Uint8Array, attrs: BuildAttributes): Promise<BuiltPayload> {
    const candidates = this.candidates(parent, attrs);
    const built = await this.pool.run('build', { env: this.env, parent, attrs, candidates });
    const key = toHex(built.hash);
    this.#builtHashes.delete(key);
    if (this.#builtHashes.size >= MAX_BUILT_BLOCKS)
      this.#builtHashes.delete(this.#builtHashes.values().next().value as string);
    this.#builtHashes.add(key);
    return built;
  }

  /** Waits for the thread's writes, closes its database handle and stages, then stops the thread. */
  async close(): Promise<void> {
    trieNodeWrites(this.store.db).setBarrier(undefined);
    try {
      await this.pool.run('shutdown', null);
    } finally {
      await this.pool.close();
    }
  }

  /** The pool's candidates for a block on `parent` (chain/buildCandidates.ts: the same rule as the pending block's). */
  private candidates(parent: Uint8Array, attrs: BuildAttributes): BuildCandidate[] {
    const header = this.store.headerByHash(parent);
    const site = header === undefined ? undefined : { header, hash: parent };
    return candidatesFor(this.store.config(), this.txSource, site, attrs);
  }

  /** Re-reads the head the thread wrote; when it moved, tells the coordinator's listeners. */
  private followHead(): void {
    const before = this.store.head().hash;
    this.store.db.kv.renewReads?.();
    this.store.reloadHead();
    const head = this.store.head();
    if (Buffer.compare(before, head.hash) !== 0) headEvents(this.store.db).emit(head);
  }
}
