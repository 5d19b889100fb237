// The background storage tasks of a running tern-exec, started with the node and stopped before the database
// closes: the transaction index window, the log index, moving old blocks to the ancient store, deleting side blocks
// that can no longer become canonical, pruning old state, and the free-disk guard. Tasks run one step (one write
// batch) at a time, one after another, woken by head events and a timer, so the coordinator thread keeps serving RPC
// between steps; the state pruner's mark runs in slices of its own between them (statePruner.ts).
import type { Logger } from '../../common/logger/index.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import { headEvents } from '../chain/headEvents.js';
import { freezeBlocks, readGenesisHash } from '../db/chain.js';
import { type FreeDiskMonitor, startFreeDiskMonitor } from '../db/freeDisk.js';
import type { Database } from '../db/open.js';
import { LogCheckpointExporter, type LogValueParams } from './logCheckpoints.js';
import { LogIndexer } from './logIndexer.js';
import { type HistoryOptions, historyDefaults, type StateScheme, stateRetention } from './options.js';
import { historyCutoff, resolveStateScheme } from './policy.js';
import { SideBlockPruner } from './sidePruner.js';
import { StatePruner } from './statePruner.js';
import { TxIndexer } from './txIndexer.js';

export interface HistoryServiceOptions extends Partial<HistoryOptions> {
  /** --datadir.minfreedisk in MB; 0 or undefined disables the guard. */
  minFreeDiskMB?: number | undefined;
  /** Where free space is measured; default the chaindata directory. */
  diskPath?: string | undefined;
  /** How log values are placed for the checkpoint export (tests use small maps; default geth's). */
  logValueParams?: LogValueParams | undefined;
}

export interface HistoryServiceDeps {
  logger?: Logger | undefined;
  /** Called once when free disk space falls below the minimum (the node shuts down). */
  onLowDisk?: ((freeMB: number) => void) | undefined;
  /** Free bytes at a path (tests replace it). */
  freeBytes?: ((path: string) => Promise<number>) | undefined;
  /** Free-disk poll interval, ms. */
  diskIntervalMs?: number | undefined;
}

export class HistoryService {
  readonly options: HistoryOptions;
  readonly scheme: StateScheme;
  readonly txIndexer: TxIndexer;
  readonly logIndexer: LogIndexer;
  readonly pruner: StatePruner;
  readonly sidePruner: SideBlockPruner;
  /** --history.logs.export; undefined when not given (or the log index is disabled, as geth then has none). */
  readonly checkpoints: LogCheckpointExporter | undefined;
  readonly #db: Database;
  readonly #logger: Logger | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #disk: FreeDiskMonitor | undefined;

  private constructor(
    db: Database,
    options: HistoryOptions,
    scheme: StateScheme,
    logger: Logger | undefined,
    logValueParams: LogValueParams | undefined,
  ) {
    this.#db = db;
    this.options = options;
    this.scheme = scheme;
    this.#logger = logger;
    const batchBlocks = options.batchBlocks;
    this.txIndexer = new TxIndexer(db, { limit: options.txHistory, batchBlocks }, logger);
    this.logIndexer = new LogIndexer(
      db,
      { history: options.logHistory, disabled: options.logsDisabled, batchBlocks },
      logger,
    );
    this.sidePruner = new SideBlockPruner(db, { batchBlocks }, logger);
    this.checkpoints =
      options.logExportFile !== '' && !options.logsDisabled
        ? new LogCheckpointExporter(db, { file: options.logExportFile, batchBlocks, params: logValueParams }, logger)
        : undefined;
    this.pruner = new StatePruner(
      db,
      { retain: stateRetention(options, scheme), interval: options.pruneInterval },
      logger,
    );
  }

  /**
   * Checks the flags against the database (state scheme, chain history; TernErrors with HistoryErrorCode), then
   * starts the tasks. `start: false` only checks and builds (tests drive the steps themselves).
   */
  static async open(
    db: Database,
    config: ChainConfig,
    opts: HistoryServiceOptions,
    deps: HistoryServiceDeps = {},
    start = true,
  ): Promise<HistoryService> {
    const options: HistoryOptions = { ...historyDefaults };
    for (const [k, v] of Object.entries(opts)) if (v !== undefined && k in options) Object.assign(options, { [k]: v });
    const scheme = await resolveStateScheme(db.kv, options.stateScheme);
    const genesis = readGenesisHash(db);
    if (genesis !== undefined) historyCutoff(options.chainHistory, `0x${Buffer.from(genesis).toString('hex')}`, config);
    const svc = new HistoryService(db, options, scheme, deps.logger, opts.logValueParams);
    await svc.txIndexer.repair();
    deps.logger?.info('Storage history settings', {
      txHistory: options.txHistory === 0 ? 'entire chain' : `last ${options.txHistory} blocks`,
      logIndex: options.logsDisabled ? 'disabled' : options.logHistory === 0 ? 'entire chain' : options.logHistory,
      chainHistory: options.chainHistory,
      gcmode: options.gcMode,
      stateScheme: scheme,
      stateRetained: stateRetention(options, scheme) || 'all',
      freezeThreshold: db.ancients === undefined ? 'no ancient store' : options.freezeThreshold,
    });
    if (start) svc.#start(opts, deps);
    return svc;
  }

  #start(opts: HistoryServiceOptions, deps: HistoryServiceDeps): void {
    this.#unsubscribe = headEvents(this.#db).on(() => {
      // Synchronously after a block commit: the sweep's delete batch is queued before any later block's.
      if (this.pruner.sweeping) void this.pruner.sweepStep().catch((err) => this.#fail('state prune', err));
      this.kick();
    });
    const tick = () => {
      this.kick();
      this.#timer = setTimeout(tick, this.options.intervalMs);
      this.#timer.unref();
    };
    tick();
    const minFree = opts.minFreeDiskMB ?? 0;
    const path = opts.diskPath ?? this.#db.paths?.chaindata;
    if (minFree > 0 && path !== undefined) {
      this.#disk = startFreeDiskMonitor(path, minFree, (mb) => deps.onLowDisk?.(mb), {
        ...(deps.logger ? { logger: deps.logger } : {}),
        ...(deps.freeBytes ? { freeBytes: deps.freeBytes } : {}),
        ...(deps.diskIntervalMs !== undefined ? { intervalMs: deps.diskIntervalMs } : {}),
      });
    }
  }

  /** geth's TxIndexDone, for the RPC's "transaction indexing is in progress". */
  txIndexDone(): boolean {
    return this.txIndexer.done();
  }

  /** Wakes the task loop (a no-op while it runs, except that it runs once more). */
  kick(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.#loop().finally(() => {
      this.#running = undefined;
    });
  }

  /** Runs every task until none has work left (tests; also what the loop does between wake-ups). */
  async drain(): Promise<void> {
    while (!this.#stopped && (await this.step())) {}
  }

  /** One step of each task; true when any has more to do. */
  async step(): Promise<boolean> {
    let more = false;
    more = (await this.txIndexer.step()) || more;
    more = (await this.logIndexer.step()) || more;
    if (this.checkpoints) more = (await this.checkpoints.step()) || more;
    if (this.#db.ancients !== undefined) {
      const frozen = await freezeBlocks(this.#db, {
        threshold: this.options.freezeThreshold,
        maxBlocks: this.options.batchBlocks,
      });
      if (frozen > 0) this.#logger?.debug('Moved blocks to the ancient store', { blocks: frozen });
      more = frozen === this.options.batchBlocks || more;
    }
    // Side blocks that can no longer become canonical, before the mark (their states then need no keeping).
    more = (await this.sidePruner.step()) || more;
    this.pruner.markIfDue();
    return more;
  }

  async #loop(): Promise<void> {
    do {
      this.#again = false;
      try {
        while (!this.#stopped && (await this.step())) await new Promise((r) => setImmediate(r));
      } catch (err) {
        this.#fail('storage maintenance', err);
        return;
      }
    } while (this.#again && !this.#stopped);
  }

  #fail(what: string, err: unknown): void {
    this.#logger?.error(`Background ${what} failed; retrying later`, {
      err: err instanceof Error ? err.message : String(err),
    });
  }

  /** Stops the tasks and waits for the step in flight. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#unsubscribe?.();
    this.#disk?.stop();
    await this.#running;
    await this.pruner.stop();
  }
}
