// The sequencer (op-node's rollup/sequencing): one block per block time, on time. For the block after the unsafe
// head it picks the L1 origin (originSelector.ts), prepares attributes (L1-info deposit, deposits, upgrade txs;
// the pool unless noTxPoolFor says no), starts the build with forkchoiceUpdated(attributes) one block time before
// the slot, fetches the payload `sealMarginMs` before the slot, commits it to the conductor (when enabled), hands
// it to `publish` (signing, gossip), and inserts it as the new unsafe head (newPayload + forkchoiceUpdated).
//
// It is an async loop beside the driver: every engine action runs through `exclusive` (the driver's
// runExclusive), so it never interleaves with a derivation step; a head that moved meanwhile drops the build.
// Rejected attributes or payloads: sequencing error, rebuild after one block time. Inconsistent origins: ask the
// driver for a reset. Safe head more than --sequencer.max-safe-lag behind: pause. Not the conductor's leader: wait.
import { backoffDelay, FailureStreak } from '../../common/backoff.js';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import type { L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import { disabledConductor, type PayloadEnvelopeLike, type SequencerConductor } from '../conductor/interface.js';
import { fromHex, type PayloadAttributes } from '../derive/types.js';
import { toEngineAttributes } from '../engine/attributes.js';
import type { EngineHeads } from '../engine/engineController.js';
import type { Engine, ExecutionPayload } from '../engine/interface.js';
import type { SequencerStateListener } from './adminState.js';
import { type SequencerOptions, sequencerDefaults } from './config.js';
import { noTxPoolFor } from './originSelector.js';

/** What the sequencer needs of the engine controller. */
export interface SequencerEngine {
  readonly initialized: boolean;
  readonly heads: EngineHeads;
  readonly engine: Pick<Engine, 'forkchoiceUpdated' | 'getPayload'>;
  insertUnsafePayload(
    payload: ExecutionPayload,
    parentBeaconBlockRoot?: Uint8Array,
    opts?: { local?: boolean },
  ): Promise<L2BlockRef>;
}

export interface SequencerProviders {
  engine: SequencerEngine;
  origins: { findL1Origin(l2Head: L2BlockRef): Promise<L1BlockRef>; reset(): void; recover: boolean };
  attributes: { prepare(parent: L2BlockRef, epoch: { hash: string; number: number }): Promise<PayloadAttributes> };
  conductor?: SequencerConductor | undefined;
  /** The driver's runExclusive; default: run directly. */
  exclusive?: (<T>(fn: () => Promise<T>) => Promise<T>) | undefined;
  /** The driver's requestReset (inconsistent origins, L1 reorgs seen while sequencing). */
  requestReset?: (() => void) | undefined;
  /** Sign and gossip a sealed payload (before it is inserted, as op-node does); failures are logged. */
  publish?: ((env: PayloadEnvelopeLike) => Promise<void>) | undefined;
  /** --rpc.admin-state persistence. */
  state?: SequencerStateListener | undefined;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` or when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const t = setTimeout(done, Math.max(0, ms));
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    }),
};

export interface SequencerMetrics {
  recordSequencingError?(): void;
  recordSequencerReset?(): void;
  /** Build time (FCU to sealed) minus the block time, seconds (op-node's sequencer_building_diff_seconds). */
  recordBuildingDiff?(seconds: number): void;
  /** getPayload duration, seconds (sequencer_sealing_seconds). */
  recordSealing?(seconds: number): void;
  recordPublishingError?(): void;
  setTransactionsSequenced?(total: number): void;
}

export interface SequencerDeps {
  logger: Logger;
  metrics?: SequencerMetrics | undefined;
  signal?: AbortSignal | undefined;
  clock?: Clock | undefined;
  /** A critical error: the node must stop. */
  onCritical?: ((err: TernError) => void) | undefined;
}

interface Build {
  parent: L2BlockRef;
  origin: L1BlockRef;
  attributes: PayloadAttributes;
  payloadId: Uint8Array;
  startedAt: number;
}

interface Sealed {
  build: Build;
  env: PayloadEnvelopeLike;
}

/** How long an idle loop sleeps before looking again (start/stop wake it at once). */
const IDLE_MS = 1000;
const POLL_MS = 250;
/** Temporary failures (the engine down...): exponential back-off from 1 s, at most 10 s, jittered. */
const TEMPORARY_BACKOFF = { baseMs: 1000, maxMs: 10_000, jitter: 0.2 } as const;
/** While failures go on, a summary at most this often (the first failure is logged at once). */
const FAILURE_SUMMARY_MS = 30_000;

export const SEQUENCER_ALREADY_STARTED = 'sequencer already running';
export const SEQUENCER_ALREADY_STOPPED = 'sequencer not running';

export class Sequencer {
  readonly #cfg: RollupConfig;
  readonly #opts: Required<SequencerOptions>;
  readonly #p: SequencerProviders;
  readonly #conductor: SequencerConductor;
  readonly #log: Logger;
  readonly #metrics: SequencerMetrics | undefined;
  readonly #clock: Clock;
  readonly #deps: SequencerDeps;
  #active = false;
  #closed = false;
  #wakeCtl = new AbortController();
  #loopDone: Promise<void> | undefined;
  /** The current build-and-insert cycle; stop() waits for it. */
  #cycle: Promise<void> = Promise.resolve();
  #pending: Sealed | undefined;
  #lagWarned = false;
  #leaderWarned = false;
  #txCount = 0;
  #lastSealed: L2BlockRef | undefined;
  readonly #failures: FailureStreak;

  constructor(cfg: RollupConfig, opts: SequencerOptions, providers: SequencerProviders, deps: SequencerDeps) {
    this.#cfg = cfg;
    this.#opts = {
      l1Confs: opts.l1Confs,
      maxSafeLag: opts.maxSafeLag,
      stopped: opts.stopped,
      recover: opts.recover,
      sealMarginMs: opts.sealMarginMs ?? sequencerDefaults.sealMarginMs,
      l1BlockTime: opts.l1BlockTime ?? sequencerDefaults.l1BlockTime,
    };
    this.#p = providers;
    this.#conductor = providers.conductor ?? disabledConductor;
    this.#log = deps.logger.child('sequencer');
    this.#metrics = deps.metrics;
    this.#clock = deps.clock ?? systemClock;
    this.#failures = new FailureStreak(FAILURE_SUMMARY_MS, () => this.#clock.now());
    this.#deps = deps;
    this.#p.origins.recover = this.#opts.recover;
    deps.signal?.addEventListener('abort', () => void this.close(), { once: true });
  }

  /** Starts the loop: active unless --sequencer.stopped (or a persisted stopped state). */
  async init(): Promise<void> {
    if (this.#opts.stopped) {
      await this.#p.state?.sequencerStopped();
      this.#log.info('Sequencer initialized in the stopped state (admin_startSequencer starts it)');
    } else {
      await this.#p.state?.sequencerStarted();
      this.#active = true;
      this.#log.info('Sequencer started', { recover: this.#opts.recover, maxSafeLag: this.#opts.maxSafeLag });
    }
    this.#loopDone ??= this.#loop();
  }

  get active(): boolean {
    return this.#active;
  }

  get recoverMode(): boolean {
    return this.#p.origins.recover;
  }

  /** The last block this sequencer inserted. */
  get lastSealed(): L2BlockRef | undefined {
    return this.#lastSealed;
  }

  /** admin_startSequencer: only as leader, only on top of the current unsafe head. */
  async start(blockHash: string): Promise<void> {
    if (this.#conductor.enabled) {
      let leader: boolean;
      try {
        leader = await this.#conductor.leader();
      } catch (err) {
        throw new TernError('SEQUENCER_START', `sequencer leader check failed: ${(err as Error).message}`);
      }
      if (!leader) throw new TernError('SEQUENCER_START', 'sequencer is not the leader, aborting');
    }
    if (this.#active) throw new TernError('SEQUENCER_ALREADY_STARTED', SEQUENCER_ALREADY_STARTED);
    const e = this.#p.engine;
    if (!e.initialized)
      throw new TernError(
        'SEQUENCER_START',
        `no prestate, cannot determine if sequencer start at ${blockHash} is safe`,
      );
    const head = e.heads.unsafe;
    if (head.hash !== blockHash.toLowerCase()) {
      throw new TernError(
        'SEQUENCER_START',
        `block hash does not match: head ${head.hash} (${head.number}), received ${blockHash}`,
      );
    }
    await this.#p.state?.sequencerStarted();
    this.#active = true;
    this.#pending = undefined;
    this.#log.info('Sequencer has been started', { head: head.hash, number: head.number });
    this.#wake();
  }

  /** admin_stopSequencer: waits for a sealed block to be inserted, then returns the unsafe head's hash. */
  async stop(): Promise<string> {
    if (!this.#active) throw new TernError('SEQUENCER_ALREADY_STOPPED', SEQUENCER_ALREADY_STOPPED);
    this.#active = false;
    this.#wake();
    await this.#cycle;
    await this.#p.state?.sequencerStopped();
    const head = this.#p.engine.initialized ? this.#p.engine.heads.unsafe : undefined;
    this.#log.info('Sequencer has been stopped', { head: head?.hash, number: head?.number });
    return head?.hash ?? `0x${'00'.repeat(32)}`;
  }

  /** --sequencer.recover toggled at runtime (admin_setRecoverMode). */
  setRecoverMode(on: boolean): void {
    this.#p.origins.recover = on;
    this.#opts.recover = on;
    this.#log.info('Sequencer recover mode', { enabled: on });
  }

  setMaxSafeLag(lag: number): void {
    this.#opts.maxSafeLag = lag;
    this.#wake();
  }

  /** The engine or derivation was reset: forget origins and any sealed payload not yet inserted. */
  onReset(): void {
    this.#p.origins.reset();
    this.#pending = undefined;
    this.#metrics?.recordSequencerReset?.();
    this.#wake();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#wake();
    await this.#loopDone;
  }

  #wake(): void {
    this.#wakeCtl.abort();
    this.#wakeCtl = new AbortController();
  }

  async #sleep(ms: number, interruptible = true): Promise<void> {
    if (ms <= 0 || this.#closed) return;
    await this.#clock.sleep(ms, interruptible ? this.#wakeCtl.signal : undefined);
  }

  async #loop(): Promise<void> {
    while (!this.#closed) {
      let wait: number;
      let release!: () => void;
      this.#cycle = new Promise((r) => {
        release = r;
      });
      try {
        wait = await this.#tick();
        const ended = this.#failures.succeed();
        if (ended) this.#log.info('Sequencing recovered', { failures: ended.failures, downForMs: ended.lastedMs });
      } catch (err) {
        wait = this.#onError(err);
      } finally {
        release();
      }
      if (wait > 0) await this.#sleep(wait);
      else await new Promise((r) => setImmediate(r));
    }
  }

  #onError(err: unknown): number {
    const e =
      err instanceof TernError
        ? err
        : new TernError('SEQUENCER_UNEXPECTED', err instanceof Error ? err.message : String(err), {
            severity: 'temporary',
            cause: err,
          });
    this.#metrics?.recordSequencingError?.();
    if (e.severity === 'critical') {
      this.#log.error('Sequencer stopped on a critical error', { code: e.code, err: e.message });
      this.#active = false;
      this.#deps.onCritical?.(e);
      return IDLE_MS;
    }
    if (e.severity === 'reset') {
      this.#log.warn('Sequencer needs a reset', { code: e.code, err: e.message });
      this.#p.origins.reset();
      this.#pending = undefined;
      this.#metrics?.recordSequencerReset?.();
      this.#p.requestReset?.();
      return this.#cfg.blockTime * 1000;
    }
    if (e.code === 'SEQUENCER_BUILD_INVALID') {
      this.#log.error('Engine rejected the sequenced block, rebuilding after one block time', { err: e.message });
      return this.#cfg.blockTime * 1000;
    }
    const report = this.#failures.fail();
    const retryInMs = e.code === 'ENGINE_SYNCING' ? 30_000 : backoffDelay(this.#failures.failures, TEMPORARY_BACKOFF);
    if (report.kind === 'first')
      this.#log.error('Sequencing failed temporarily, backing off', { code: e.code, err: e.message, retryInMs });
    else if (report.kind === 'summary')
      this.#log.warn('Sequencing still failing, backing off', {
        failures: report.failures,
        sinceMs: report.sinceMs,
        code: e.code,
        err: e.message,
        retryInMs,
      });
    return retryInMs;
  }

  /** One step; returns how long to wait before the next. */
  async #tick(): Promise<number> {
    if (!this.#active) return IDLE_MS;
    const e = this.#p.engine;
    if (!e.initialized) return POLL_MS;
    const heads = e.heads;
    if (this.#pending !== undefined) {
      if (this.#pending.build.parent.hash === heads.unsafe.hash) {
        await this.#finish(this.#pending);
        return 0;
      }
      this.#pending = undefined;
    }
    const lag = this.#opts.maxSafeLag;
    if (lag > 0 && heads.safe.number + lag <= heads.unsafe.number) {
      if (!this.#lagWarned) {
        this.#log.warn('Safe head lags the unsafe head by more than --sequencer.max-safe-lag, pausing', {
          unsafe: heads.unsafe.number,
          safe: heads.safe.number,
          maxSafeLag: lag,
        });
        this.#lagWarned = true;
      }
      return POLL_MS;
    }
    if (this.#lagWarned) {
      this.#log.info('Safe head caught up, resuming sequencing', { safe: heads.safe.number });
      this.#lagWarned = false;
    }
    if (this.#conductor.enabled && !(await this.#conductor.leader())) {
      if (!this.#leaderWarned) this.#log.info('Not the conductor leader, not sequencing');
      this.#leaderWarned = true;
      return IDLE_MS;
    }
    this.#leaderWarned = false;

    const parent = heads.unsafe;
    const slotMs = (parent.timestamp + this.#cfg.blockTime) * 1000;
    const startAt = slotMs - this.#cfg.blockTime * 1000;
    const now = this.#clock.now();
    if (now < startAt) return startAt - now;

    const build = await this.#startBuild(parent);
    if (build === undefined) return 0;
    await this.#sleep(slotMs - this.#opts.sealMarginMs - this.#clock.now());
    if (!this.#active || this.#closed) {
      this.#log.info('Sequencer stopped before sealing, dropping the build', { number: parent.number + 1 });
      return 0;
    }
    const sealStart = this.#clock.now();
    const env = await this.#p.engine.engine.getPayload(build.payloadId, build.attributes.timestamp);
    const sealedAt = this.#clock.now();
    this.#metrics?.recordSealing?.((sealedAt - sealStart) / 1000);
    this.#metrics?.recordBuildingDiff?.((sealedAt - build.startedAt) / 1000 - this.#cfg.blockTime);
    const p = env.executionPayload;
    this.#log.info('Sequencer sealed block', {
      number: Number(p.blockNumber),
      hash: `0x${Buffer.from(p.blockHash).toString('hex')}`,
      txs: p.transactions.length,
      time: Number(p.timestamp),
      buildMs: sealedAt - build.startedAt,
      sealMs: sealedAt - sealStart,
      lateMs: Math.max(0, sealedAt - slotMs),
    });
    await this.#finish({
      build,
      env: {
        executionPayload: p,
        parentBeaconBlockRoot: env.parentBeaconBlockRoot ?? build.attributes.parentBeaconBlockRoot,
      },
    });
    return 0;
  }

  async #startBuild(parent: L2BlockRef): Promise<Build | undefined> {
    const origin = await this.#p.origins.findL1Origin(parent);
    const attributes = await this.#p.attributes.prepare(parent, origin);
    attributes.noTxPool = noTxPoolFor(this.#cfg, attributes.timestamp, origin, this.#p.origins.recover);
    const run = this.#p.exclusive ?? (<T>(fn: () => Promise<T>) => fn());
    return run(async () => {
      const h = this.#p.engine.heads;
      if (h.unsafe.hash !== parent.hash) return undefined;
      let fcu: Awaited<ReturnType<Engine['forkchoiceUpdated']>>;
      try {
        fcu = await this.#p.engine.engine.forkchoiceUpdated(
          {
            headBlockHash: fromHex(parent.hash),
            safeBlockHash: fromHex(h.safe.hash),
            finalizedBlockHash: fromHex(h.finalized.hash),
          },
          toEngineAttributes(attributes),
        );
      } catch (err) {
        if (err instanceof TernError && err.code === 'ENGINE_INVALID_ATTRIBUTES')
          return this.#invalid(`invalid attributes: ${err.message}`);
        throw err;
      }
      const s = fcu.payloadStatus;
      if (s.status === 'INVALID')
        return this.#invalid(`forkchoiceUpdated with attributes: INVALID ${s.validationError ?? ''}`);
      if (s.status !== 'VALID')
        throw new TernError('ENGINE_SYNCING', `forkchoiceUpdated answered ${s.status}`, { severity: 'temporary' });
      if (fcu.payloadId === null)
        throw new TernError('ENGINE_NO_PAYLOAD_ID', 'forkchoiceUpdated started no payload build', {
          severity: 'temporary',
        });
      this.#log.debug('Started building block', {
        number: parent.number + 1,
        time: attributes.timestamp,
        origin: origin.number,
        noTxPool: attributes.noTxPool,
      });
      return { parent, origin, attributes, payloadId: fcu.payloadId, startedAt: this.#clock.now() };
    });
  }

  /** The engine refused our block: count it and try again after one block time (op-node's handleInvalid). */
  #invalid(reason: string): never {
    throw new TernError('SEQUENCER_BUILD_INVALID', reason, { severity: 'temporary' });
  }

  async #finish(sealed: Sealed): Promise<void> {
    this.#pending = sealed;
    if (this.#conductor.enabled) await this.#conductor.commitUnsafePayload(sealed.env);
    if (this.#p.publish !== undefined) {
      try {
        await this.#p.publish(sealed.env);
      } catch (err) {
        this.#metrics?.recordPublishingError?.();
        this.#log.warn('Failed to publish the sealed block', { err: (err as Error).message });
      }
    }
    const run = this.#p.exclusive ?? (<T>(fn: () => Promise<T>) => fn());
    const ref = await run(async () => {
      if (this.#p.engine.heads.unsafe.hash !== sealed.build.parent.hash) {
        this.#log.warn('Unsafe head moved while building, dropping the sealed block', {
          parent: sealed.build.parent.number,
          head: this.#p.engine.heads.unsafe.number,
        });
        return undefined;
      }
      try {
        return await this.#p.engine.insertUnsafePayload(sealed.env.executionPayload, sealed.env.parentBeaconBlockRoot, {
          local: true,
        });
      } catch (err) {
        if (err instanceof TernError && err.code === 'ENGINE_INVALID') {
          this.#pending = undefined;
          this.#invalid(`the engine rejected the sealed block: ${err.message}`);
        }
        throw err;
      }
    });
    this.#pending = undefined;
    if (ref === undefined) return;
    this.#lastSealed = ref;
    this.#txCount += sealed.env.executionPayload.transactions.length;
    this.#metrics?.setTransactionsSequenced?.(this.#txCount);
    this.#log.info('Sequencer inserted block', {
      number: ref.number,
      hash: ref.hash,
      origin: ref.l1origin.number,
      seq: ref.sequenceNumber,
    });
  }
}
