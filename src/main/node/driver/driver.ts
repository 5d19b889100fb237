// The driver (op-node's driver event loop): finds the sync start, then steps derivation on the pending safe head
// and feeds its attributes to the engine controller; reacts to L1 head/safe/finalized signals (a new head wakes an
// idle loop; finality runs the finalizer); resets derivation and engine heads on reset-severity errors (L1 reorgs,
// a changed pending safe head); retries temporary errors with back-off; stops on critical ones.
//
// Every action that touches the engine runs under one lock, between derivation steps: runExclusive() is how the
// sequencer (building blocks) and the admin API (resets) plug in later.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { refString, reportL1Head, syncStatusFields } from '../../common/metrics/progress.js';
import type { BlockId, L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { isHolocene, type RollupConfig } from '../../primitives/rollup/config.js';
import type { StepResult } from '../derive/pipeline.js';
import type { AttributesWithParent } from '../derive/types.js';
import type { EngineController } from '../engine/engineController.js';
import { currentHeads, findL2Heads, type SyncStartL1, type SyncStartResult } from '../engine/syncStart.js';
import type { SafeHeadStore } from '../safedb/safedb.js';
import { Finalizer } from './finalizer.js';

/** What the driver needs of the derivation pipeline (derive/pipeline.ts DerivationPipeline). */
export interface Derivation {
  reset(safeHead: L2BlockRef): Promise<void>;
  step(safeHead: L2BlockRef): Promise<StepResult>;
  origin(): L1BlockRef | undefined;
  depositsOnlyAttributes(parent: BlockId): AttributesWithParent;
}

export type SyncMode = 'consensus-layer' | 'execution-layer';

export interface DriverOptions {
  /** --syncmode */
  syncMode: SyncMode;
  /** How long an idle loop (derivation caught up with L1) waits for a new L1 head before stepping again. */
  idlePollMs?: number | undefined;
  /** First delay after a temporary error; doubles up to maxRetryDelayMs. */
  retryDelayMs?: number | undefined;
  maxRetryDelayMs?: number | undefined;
}

export const driverDefaults = {
  syncMode: 'consensus-layer' as SyncMode,
  idlePollMs: 4000,
  retryDelayMs: 250,
  maxRetryDelayMs: 10_000,
} as const;

export interface DriverMetrics {
  recordPipelineReset?(): void;
  recordDerivationError?(): void;
  setDerivationIdle?(idle: boolean): void;
  recordL1Ref?(type: 'l1_head' | 'l1_safe' | 'l1_finalized' | 'l1_derived', ref: L1BlockRef): void;
  recordL1ReorgDepth?(depth: number): void;
}

export interface DriverProviders {
  l1: SyncStartL1;
  derivation: Derivation;
  engine: EngineController;
  safeDb: SafeHeadStore;
}

/**
 * Where derivation stands on L1 after a step (op-node's DeriverL1StatusEvent and ExhaustedL1Event): the origin moved
 * to a new L1 block, or every L1 block available was read. `lastL2` is the block derivation builds on.
 */
export interface DerivationL1Event {
  kind: 'originAdvanced' | 'exhausted';
  origin: L1BlockRef;
  lastL2: L2BlockRef;
}

export interface DriverDeps {
  logger: Logger;
  metrics?: DriverMetrics | undefined;
  signal?: AbortSignal | undefined;
  /** A critical error stopped the driver (the program should stop). */
  onCritical?: ((err: TernError) => void) | undefined;
}

/** op-node's eth.SyncStatus, as typed refs (rpc/json.ts turns it into op-node's JSON). */
export interface SyncStatus {
  currentL1: L1BlockRef | undefined;
  currentL1Finalized: L1BlockRef | undefined;
  headL1: L1BlockRef | undefined;
  safeL1: L1BlockRef | undefined;
  finalizedL1: L1BlockRef | undefined;
  unsafeL2: L2BlockRef | undefined;
  safeL2: L2BlockRef | undefined;
  finalizedL2: L2BlockRef | undefined;
  pendingSafeL2: L2BlockRef | undefined;
  crossUnsafeL2: L2BlockRef | undefined;
  localSafeL2: L2BlockRef | undefined;
}

const asTernError = (err: unknown): TernError =>
  err instanceof TernError
    ? err
    : new TernError('DRIVER_UNEXPECTED', err instanceof Error ? err.message : String(err), {
        severity: 'temporary',
        cause: err,
      });

export class Driver {
  readonly #cfg: RollupConfig;
  readonly #opts: Required<DriverOptions>;
  readonly #p: DriverProviders;
  readonly #deps: DriverDeps;
  readonly #log: Logger;
  readonly finalizer: Finalizer;
  #lock: Promise<unknown> = Promise.resolve();
  #wake: (() => void) | undefined;
  #needReset = false;
  #finalizePending = false;
  #running: Promise<void> | undefined;
  #stopped = false;
  #headL1: L1BlockRef | undefined;
  #safeL1: L1BlockRef | undefined;
  #finalizedL1: L1BlockRef | undefined;
  #stopError: TernError | undefined;
  /** The derivation origin last reported in the sync-status line. */
  #loggedOrigin: string | undefined;
  /** Why the next reset happens (reported to reset listeners). */
  #resetReason = 'reset requested';
  readonly #resetListeners = new Set<(reason: string) => void>();
  readonly #l1Listeners = new Set<(e: DerivationL1Event) => void>();
  /** Derivation is waiting for the engine's EL sync (see #step). */
  #elSyncing = false;

  constructor(cfg: RollupConfig, opts: DriverOptions, providers: DriverProviders, deps: DriverDeps) {
    this.#cfg = cfg;
    this.#opts = {
      syncMode: opts.syncMode,
      idlePollMs: opts.idlePollMs ?? driverDefaults.idlePollMs,
      retryDelayMs: opts.retryDelayMs ?? driverDefaults.retryDelayMs,
      maxRetryDelayMs: opts.maxRetryDelayMs ?? driverDefaults.maxRetryDelayMs,
    };
    this.#p = providers;
    this.#deps = deps;
    this.#log = deps.logger.child('driver');
    this.finalizer = new Finalizer(providers.l1, {
      logger: deps.logger,
      finalize: (ref) => providers.engine.finalize(ref),
      finalizedHead: () => providers.engine.heads.finalized,
    });
    deps.signal?.addEventListener('abort', () => void this.stop(), { once: true });
    // The end of EL sync (a gossiped payload the engine accepts as VALID) wakes a loop waiting for it.
    providers.engine.onHeadsChanged(() => {
      if (this.#elSyncing && !providers.engine.engineSyncing) this.#wake?.();
    });
  }

  get engine(): EngineController {
    return this.#p.engine;
  }

  /** The critical error that stopped the loop, if one did. */
  get stopError(): TernError | undefined {
    return this.#stopError;
  }

  /** Starts the loop in the background; resolves once started (the sync start is found inside the loop). */
  start(): void {
    this.#running ??= this.#loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#running;
  }

  /** Runs `fn` between derivation steps, with exclusive use of the engine. */
  runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(fn, fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }

  /** Calls `listener` with the reason after every derivation reset; returns the function that removes it. */
  onReset(listener: (reason: string) => void): () => void {
    this.#resetListeners.add(listener);
    return () => this.#resetListeners.delete(listener);
  }

  /** Calls `listener` after every step that moved the origin or found L1 exhausted; returns the remover. */
  onDerivationL1(listener: (e: DerivationL1Event) => void): () => void {
    this.#l1Listeners.add(listener);
    return () => this.#l1Listeners.delete(listener);
  }

  /** Ends an idle wait now (new L1 input arrived from elsewhere, e.g. the interop supervisor's provideL1). */
  wake(): void {
    this.#wake?.();
  }

  /** Asks for a derivation and engine reset (admin_resetDerivationPipeline, L1 reorgs seen elsewhere). */
  requestReset(): void {
    this.#needReset = true;
    this.#wake?.();
  }

  /** L1 head tracking (l1/heads.ts) calls this with every new reference. */
  onL1Head(label: 'latest' | 'safe' | 'finalized', ref: L1BlockRef): void {
    if (label === 'latest') {
      reportL1Head(this.#log, this.#headL1, ref, this.#deps.metrics?.recordL1ReorgDepth);
      this.#headL1 = ref;
      this.#deps.metrics?.recordL1Ref?.('l1_head', ref);
      this.#wake?.();
    } else if (label === 'safe') {
      if (this.#safeL1?.hash !== ref.hash) this.#log.info('New L1 safe block', { l1_safe: refString(ref) });
      this.#safeL1 = ref;
      this.#deps.metrics?.recordL1Ref?.('l1_safe', ref);
    } else {
      if (this.#finalizedL1?.hash !== ref.hash)
        this.#log.info('New L1 finalized block', { l1_finalized: refString(ref) });
      this.#finalizedL1 = ref;
      this.#deps.metrics?.recordL1Ref?.('l1_finalized', ref);
      if (this.finalizer.onL1Finalized(ref)) {
        this.#finalizePending = true;
        this.#wake?.();
      }
    }
  }

  syncStatus(): SyncStatus {
    const e = this.#p.engine;
    const h = e.initialized ? e.heads : undefined;
    return {
      currentL1: this.#p.derivation.origin(),
      currentL1Finalized: this.finalizer.finalizedL1,
      headL1: this.#headL1,
      safeL1: this.#safeL1,
      finalizedL1: this.#finalizedL1,
      unsafeL2: h?.unsafe,
      safeL2: h?.safe,
      finalizedL2: h?.finalized,
      pendingSafeL2: h?.pendingSafe,
      crossUnsafeL2: h?.unsafe,
      localSafeL2: h?.safe,
    };
  }

  async #loop(): Promise<void> {
    let delay = 0;
    let initialized = false;
    while (!this.#stopped) {
      try {
        const idle = await this.runExclusive(async () => {
          if (!initialized) {
            await this.#init();
            initialized = true;
          }
          if (this.#needReset) await this.#reset();
          if (this.#finalizePending) {
            this.#finalizePending = false;
            await this.finalizer.tryFinalize();
          }
          return this.#step();
        });
        delay = 0;
        this.#deps.metrics?.setDerivationIdle?.(idle);
        if (idle) await this.#wait(this.#opts.idlePollMs);
        else await new Promise((r) => setImmediate(r));
      } catch (err) {
        const e = asTernError(err);
        this.#deps.metrics?.recordDerivationError?.();
        if (e.severity === 'critical') {
          this.#log.error('Derivation stopped on a critical error', { code: e.code, err: e.message });
          this.#stopError = e;
          this.#stopped = true;
          this.#deps.onCritical?.(e);
          return;
        }
        if (e.severity === 'reset') {
          this.#log.warn('Derivation reset', { code: e.code, err: e.message });
          this.#needReset = true;
          this.#resetReason = e.message;
          continue;
        }
        delay = Math.min(this.#opts.maxRetryDelayMs, delay === 0 ? this.#opts.retryDelayMs : delay * 2);
        this.#log.debug('Temporary derivation error, retrying', { code: e.code, err: e.message, delayMs: delay });
        await this.#wait(delay);
      }
    }
  }

  /** Finds where to start from the engine's forkchoice (execution-layer sync: trusts the engine's head). */
  async #init(): Promise<void> {
    let heads: SyncStartResult;
    if (this.#opts.syncMode === 'execution-layer') {
      const cur = await currentHeads(this.#cfg, this.#p.engine.engine);
      if (cur.safe.number === this.#cfg.genesis.l2.number && cur.unsafe.number > cur.safe.number) {
        // The engine synced itself (EL sync): its head becomes safe and finalized, derivation continues after it.
        this.#log.info('Execution-layer sync: trusting the engine head', {
          number: cur.unsafe.number,
          hash: cur.unsafe.hash,
        });
        heads = { unsafe: cur.unsafe, safe: cur.unsafe, finalized: cur.unsafe };
      } else {
        heads = await findL2Heads(this.#cfg, this.#p.l1, this.#p.engine.engine, this.#log);
      }
    } else {
      heads = await findL2Heads(this.#cfg, this.#p.l1, this.#p.engine.engine, this.#log);
    }
    await this.#p.engine.reset(heads);
    await this.#p.safeDb.safeHeadReset(heads.safe);
    this.finalizer.reset();
    await this.#p.derivation.reset(heads.safe);
    this.#needReset = false;
    this.#log.info('Sync start', {
      unsafe: heads.unsafe.number,
      safe: heads.safe.number,
      finalized: heads.finalized.number,
    });
  }

  async #reset(): Promise<void> {
    this.#deps.metrics?.recordPipelineReset?.();
    const heads = await findL2Heads(this.#cfg, this.#p.l1, this.#p.engine.engine, this.#log);
    await this.#p.engine.reset(heads);
    await this.#p.safeDb.safeHeadReset(heads.safe);
    this.finalizer.reset();
    await this.#p.derivation.reset(heads.safe);
    this.#needReset = false;
    this.#log.info('Reset derivation', { unsafe: heads.unsafe.number, safe: heads.safe.number });
    const reason = this.#resetReason;
    this.#resetReason = 'reset requested';
    for (const listener of this.#resetListeners) listener(reason);
  }

  /** One derivation step; true when derivation is idle (waiting for L1, or for the engine's EL sync). */
  async #step(): Promise<boolean> {
    if (this.#p.engine.engineSyncing) {
      // op-node: the pipeline cannot move forwards while the engine syncs itself from its peers.
      if (!this.#elSyncing) this.#log.info('Derivation waits: the execution engine is syncing (EL sync)');
      this.#elSyncing = true;
      return true;
    }
    if (this.#elSyncing) {
      // The engine's synced block is now safe and finalized: derivation starts over from there.
      this.#elSyncing = false;
      this.#resetReason = 'EL sync finished';
      await this.#reset();
    }
    const lastL2 = this.#p.engine.heads.pendingSafe;
    const result = await this.#p.derivation.step(lastL2);
    if (result.kind === 'eof') {
      const origin = this.#p.derivation.origin();
      if (origin !== undefined) this.#emitL1({ kind: 'exhausted', origin, lastL2 });
      return true;
    }
    if (result.kind === 'progress') {
      const origin = this.#p.derivation.origin();
      if (origin !== undefined) this.#emitL1({ kind: 'originAdvanced', origin, lastL2 });
      if (origin !== undefined) this.#deps.metrics?.recordL1Ref?.('l1_derived', origin);
      if (origin !== undefined && origin.hash !== this.#loggedOrigin) {
        this.#loggedOrigin = origin.hash;
        this.#log.info('Derivation origin advanced', syncStatusFields(this.syncStatus()));
      }
      return false;
    }
    await this.#onAttributes(result.attributes);
    return false;
  }

  #emitL1(e: DerivationL1Event): void {
    for (const listener of this.#l1Listeners) {
      try {
        listener(e);
      } catch (err) {
        this.#log.warn('Derivation L1 listener failed', { err: err instanceof Error ? err.message : String(err) });
      }
    }
  }

  async #onAttributes(a: AttributesWithParent): Promise<void> {
    const engine = this.#p.engine;
    let out = await engine.processAttributes(a);
    let applied = a;
    if (out.kind === 'invalid') {
      if (!isHolocene(this.#cfg, a.derivedFrom.timestamp)) {
        // Before Holocene an invalid batch is dropped; derivation goes on from the same safe head.
        this.#log.warn('Engine rejected derived attributes, dropping them', {
          parent: a.parent.number,
          reason: out.reason,
        });
        return;
      }
      const depositsOnly = a.attributes.transactions.every((t) => t[0] === 0x7e);
      if (depositsOnly) {
        throw new TernError(
          'DRIVER_DEPOSITS_INVALID',
          `deposit-only block on ${a.parent.number} is invalid: ${out.reason}`,
          {
            severity: 'critical',
          },
        );
      }
      this.#log.warn('Engine rejected derived attributes, retrying with deposits only (Holocene)', {
        parent: a.parent.number,
        reason: out.reason,
      });
      applied = this.#p.derivation.depositsOnlyAttributes(a.parent);
      out = await engine.processAttributes(applied);
      if (out.kind === 'invalid') {
        throw new TernError(
          'DRIVER_DEPOSITS_INVALID',
          `deposit-only block on ${a.parent.number} is invalid: ${out.reason}`,
          {
            severity: 'critical',
          },
        );
      }
    }
    if (out.kind === 'dropped') {
      this.#log.debug('Dropped stale attributes', { reason: out.reason });
      return;
    }
    if (out.safe) {
      this.finalizer.onDerived(out.ref, applied.derivedFrom);
      await this.#p.safeDb.safeHeadUpdated(out.ref, applied.derivedFrom);
      if (this.#finalizedL1 !== undefined) this.#finalizePending = true;
    }
  }

  #wait(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
