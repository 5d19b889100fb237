// The BlockExecutor's worker twin: newPayload's execute-check-store, forkchoice heads (side chains, reorgs) and the
// safe/finalized markers run on one dedicated thread (../workers/executor.ts) over the same LMDB environment, so
// the coordinator only decodes, schedules and answers. After the thread moves the head, the coordinator's ChainStore
// drops its cached head and the head events fire here, where their listeners live (tx pool, filters,
// subscriptions). After every task the coordinator renews its LMDB read transaction (KVStore.renewReads): lmdb-js
// renews a thread's shared read transaction at most once per event turn, and the task's answer can arrive in the
// same turn as a read made before the thread's commit. The coordinator's block cache needs nothing: its entries are
// keyed by hash and every hit is confirmed against the database, which the thread's commits have changed.
//
// Not moved yet, and delegated to the inline twin on the coordinator: block building for the sequencer (`build`,
// which needs the tx pool's candidates) and storing a built block (`insertBuilt`, a write of what the coordinator
// built). Both are side-block writes that leave the head alone, so the thread's ChainStore stays right.
// The memory engine cannot be shared between threads, and --vmtrace / --vmdebug hooks run in the executing
// thread: node.ts keeps the inline twin for those.
import type { Logger } from '../../common/logger/index.js';
import type { TaskMapOf } from '../../pool/interface.js';
import { PiscinaPool } from '../../pool/piscina.js';
import type { Block } from '../../primitives/block/block.js';
import type { BuildAttributes } from '../chain/builder.js';
import type { ChainStore, HeadChange } from '../chain/chainStore.js';
import { headEvents } from '../chain/headEvents.js';
import type { ImportResult } from '../chain/importer.js';
import type * as executorTasks from '../workers/executor.js';
import type { ExecutorEnv } from '../workers/executor.js';
import type { InlineBlockExecutor } from './inline.js';
import type { BlockExecutor, BuiltPayload } from './interface.js';

type ExecutorTasks = TaskMapOf<typeof executorTasks>;

export class WorkerBlockExecutor implements BlockExecutor {
  private constructor(
    private readonly store: ChainStore,
    private readonly inline: InlineBlockExecutor,
    private readonly pool: PiscinaPool<ExecutorTasks>,
    private readonly env: ExecutorEnv,
  ) {}

  /**
   * Starts the executor thread and opens the database there (so a database the thread cannot open fails here,
   * not on the first payload). Throws WORKER_NOT_BUILT when the compiled task module is missing.
   */
  static async start(
    store: ChainStore,
    inline: InlineBlockExecutor,
    env: ExecutorEnv,
    deps: { logger?: Logger } = {},
  ): Promise<WorkerBlockExecutor> {
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
    return new WorkerBlockExecutor(store, inline, pool, env);
  }

  async insert(block: Block): Promise<ImportResult> {
    try {
      return await this.pool.run('insert', { env: this.env, block });
    } finally {
      this.store.db.kv.renewReads?.();
    }
  }

  insertBuilt(hash: Uint8Array): Promise<boolean> {
    return this.inline.insertBuilt(hash);
  }

  async setHead(hash: Uint8Array): Promise<HeadChange> {
    try {
      const change = await this.pool.run('setHead', { env: this.env, hash });
      return change;
    } finally {
      // Also after a failure: a reorg that stopped half-way has moved the head to some block on the way.
      this.followHead();
    }
  }

  async setForkchoiceMarkers(safe: Uint8Array | undefined, finalized: Uint8Array | undefined): Promise<void> {
    try {
      await this.pool.run('setForkchoiceMarkers', { env: this.env, safe, finalized });
    } finally {
      this.store.db.kv.renewReads?.();
    }
  }

  build(parent: Uint8Array, attrs: BuildAttributes): Promise<BuiltPayload> {
    return this.inline.build(parent, attrs);
  }

  /** Waits for the thread's writes, closes its database handle and stages, then stops the thread. */
  async close(): Promise<void> {
    try {
      await this.pool.run('shutdown', null);
    } finally {
      await this.pool.close();
    }
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
