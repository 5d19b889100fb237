// The engine controller (op-node's EngineController and attributes handler): keeps the unsafe, pending-safe, safe
// and finalized heads and moves the engine's forkchoice with them. Derived attributes either consolidate an
// existing unsafe block that matches them (it becomes safe without re-execution) or are built into a block through
// forkchoiceUpdated(attributes) → getPayload → newPayload → forkchoiceUpdated, which reorgs out any unsafe blocks
// that disagree. The sequencer reuses buildBlock(); gossip and EL sync reuse insertUnsafePayload().
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { syncProgressFields, syncProgressReason } from '../../common/metrics/progress.js';
import type { L2BlockRef } from '../../primitives/rollup/blockRef.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import {
  type AttributesWithParent,
  type PayloadAttributes as DerivedAttributes,
  fromHex,
  toHex,
} from '../derive/types.js';
import { attributesMismatch, toEngineAttributes } from './attributes.js';
import {
  type Engine,
  type ExecutionPayload,
  isNotFound,
  type PayloadAttributes,
  type PayloadStatus,
} from './interface.js';
import { blockRefFromBlock } from './l2Block.js';

export interface EngineHeads {
  unsafe: L2BlockRef;
  /** Derived from L1 but not yet safe: inside a span batch whose last block is still to come. */
  pendingSafe: L2BlockRef;
  safe: L2BlockRef;
  finalized: L2BlockRef;
}

/** What processAttributes did. `invalid`: the engine rejected the derived block (the driver decides what next). */
export type AttributesOutcome =
  | { kind: 'consolidated'; ref: L2BlockRef; safe: boolean }
  | { kind: 'inserted'; ref: L2BlockRef; safe: boolean; reorgedUnsafe: boolean }
  | { kind: 'dropped'; reason: string }
  | { kind: 'invalid'; reason: string };

export interface EngineControllerMetrics {
  recordL2Ref?(type: 'l2_unsafe' | 'l2_pending_safe' | 'l2_safe' | 'l2_finalized', ref: L2BlockRef): void;
}

export interface EngineControllerDeps {
  logger: Logger;
  metrics?: EngineControllerMetrics | undefined;
  /** --syncmode execution-layer: the first unsafe payloads make the engine sync itself from its peers (see below). */
  elSync?: boolean | undefined;
}

/**
 * op-node's EL-sync states: `will-start` until the first unsafe payload (then `started`, unless the engine already
 * has a finalized block past genesis: straight to `finished`, i.e. CL sync); `started` while the engine answers
 * SYNCING; `finished` once it answers VALID. `off`: consensus-layer sync.
 */
export type ElSyncState = 'off' | 'will-start' | 'started' | 'finished';

/** Outcome of building one block: the new block, or the engine's reason for rejecting the attributes. */
export type BuildResult = { ok: true; ref: L2BlockRef; payload: ExecutionPayload } | { ok: false; reason: string };

const temporary = (code: string, message: string) => new TernError(code, message, { severity: 'temporary' });

function statusError(method: string, s: PayloadStatus): TernError {
  const why = s.validationError ? `: ${s.validationError}` : '';
  if (s.status === 'SYNCING' || s.status === 'ACCEPTED') {
    return temporary('ENGINE_SYNCING', `${method} answered ${s.status}: the engine is still syncing`);
  }
  return new TernError('ENGINE_INVALID', `${method} answered ${s.status}${why}`, { severity: 'reset' });
}

export class EngineController {
  readonly #cfg: RollupConfig;
  readonly #engine: Engine;
  readonly #log: Logger;
  readonly #metrics: EngineControllerMetrics | undefined;
  #heads: EngineHeads | undefined;
  readonly #listeners = new Set<(prev: EngineHeads | undefined, next: EngineHeads) => void>();
  /**
   * Interop managed mode: the supervisor's cross-safe and finalized blocks, sent as the forkchoice's safe and
   * finalized labels instead of the locally derived ones (node/interop/managedNode.ts sets them).
   */
  managedHeads: { safe?: L2BlockRef | undefined; finalized?: L2BlockRef | undefined } | undefined;
  #elSync: ElSyncState;
  #elSyncStart = 0;

  constructor(cfg: RollupConfig, engine: Engine, deps: EngineControllerDeps) {
    this.#cfg = cfg;
    this.#engine = engine;
    this.#log = deps.logger.child('engine');
    this.#metrics = deps.metrics;
    this.#elSync = deps.elSync === true ? 'will-start' : 'off';
  }

  get elSyncState(): ElSyncState {
    return this.#elSync;
  }

  /** op-node's IsEngineSyncing: derivation waits while the engine syncs itself (EL sync not finished). */
  get engineSyncing(): boolean {
    return this.#elSync === 'will-start' || this.#elSync === 'started';
  }

  get engine(): Engine {
    return this.#engine;
  }

  get heads(): EngineHeads {
    if (this.#heads === undefined)
      throw new TernError('ENGINE_NOT_STARTED', 'engine heads are not known yet', { severity: 'temporary' });
    return this.#heads;
  }

  get initialized(): boolean {
    return this.#heads !== undefined;
  }

  /** Calls `listener` after every change of the heads; returns the function that removes it. */
  onHeadsChanged(listener: (prev: EngineHeads | undefined, next: EngineHeads) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Sets every head (after finding the sync start or a reset) and tells the engine. */
  async reset(heads: Omit<EngineHeads, 'pendingSafe'> & { pendingSafe?: L2BlockRef }): Promise<void> {
    this.#setHeads({ ...heads, pendingSafe: heads.pendingSafe ?? heads.safe });
    await this.forkchoiceUpdate();
  }

  /** The safe head derivation continues from after a pipeline reset: pending safe drops back to safe. */
  resetPendingSafe(): void {
    const h = this.heads;
    this.#setHeads({ ...h, pendingSafe: h.safe });
  }

  /** Sends the current heads as the engine's forkchoice. */
  async forkchoiceUpdate(): Promise<void> {
    const h = this.heads;
    // A managed label past the head (the head went back: a reset, a replaced block) waits for the supervisor.
    const managed = (r: L2BlockRef | undefined) => (r !== undefined && r.number <= h.unsafe.number ? r : undefined);
    const r = await this.#engine.forkchoiceUpdated({
      headBlockHash: fromHex(h.unsafe.hash),
      safeBlockHash: fromHex((managed(this.managedHeads?.safe) ?? h.safe).hash),
      finalizedBlockHash: fromHex((managed(this.managedHeads?.finalized) ?? h.finalized).hash),
    });
    if (r.payloadStatus.status !== 'VALID') throw statusError('forkchoiceUpdated', r.payloadStatus);
  }

  /** Marks a derived-from-finalized-L1 block finalized (never backwards). */
  async finalize(ref: L2BlockRef): Promise<void> {
    const h = this.heads;
    if (ref.number <= h.finalized.number) return;
    if (ref.number > h.safe.number) {
      throw new TernError(
        'ENGINE_FINALIZE_AHEAD',
        `cannot finalize block ${ref.number} past the safe head ${h.safe.number}`,
        {
          severity: 'temporary',
        },
      );
    }
    this.#setHeads({ ...h, finalized: ref });
    await this.forkchoiceUpdate();
    this.#log.info('Finalized L2 block', { number: ref.number, hash: ref.hash });
  }

  /** Applies derived attributes on top of the pending safe head: consolidate, or build. */
  async processAttributes(a: AttributesWithParent): Promise<AttributesOutcome> {
    const h = this.heads;
    const ps = h.pendingSafe;
    if (a.parent.hash !== ps.hash) {
      if (a.parent.number < ps.number) {
        return { kind: 'dropped', reason: `attributes build on ${a.parent.number}, pending safe head is ${ps.number}` };
      }
      throw new TernError(
        'ENGINE_PENDING_SAFE_CHANGED',
        `attributes build on ${a.parent.hash} (${a.parent.number}), pending safe head is ${ps.hash} (${ps.number})`,
        { severity: 'reset' },
      );
    }
    if (h.unsafe.number > ps.number) {
      const existing = await this.#engine.payloadByNumber(ps.number + 1);
      const why = attributesMismatch(this.#cfg, ps.hash, a.attributes, existing);
      if (why === undefined) {
        const ref = existing.ref;
        const safe = a.isLastInSpan;
        this.#setHeads({ ...h, pendingSafe: ref, ...(safe ? { safe: ref } : {}) });
        if (safe) await this.forkchoiceUpdate();
        this.#log.debug('Consolidated unsafe block', { number: ref.number, hash: ref.hash, safe });
        return { kind: 'consolidated', ref, safe };
      }
      this.#log.warn('Unsafe block does not match derived attributes, replacing it', {
        number: ps.number + 1,
        hash: existing.ref.hash,
        reason: why,
      });
    }
    const reorgedUnsafe = h.unsafe.number > ps.number;
    const built = await this.buildBlock(ps, a.attributes, { safe: a.isLastInSpan });
    if (!built.ok) return { kind: 'invalid', reason: built.reason };
    return { kind: 'inserted', ref: built.ref, safe: a.isLastInSpan, reorgedUnsafe };
  }

  /**
   * Builds a block on `parent` from attributes and makes it the unsafe head (and pending safe, or safe with
   * `safe`, when derived; the sequencer passes derived: false). Engine rejections come back as { ok: false }.
   */
  async buildBlock(
    parent: L2BlockRef,
    attributes: DerivedAttributes,
    opts: { safe: boolean; derived?: boolean },
  ): Promise<BuildResult> {
    const h = this.heads;
    const derived = opts.derived ?? true;
    const engineAttrs: PayloadAttributes = toEngineAttributes(attributes);
    let fcu: Awaited<ReturnType<Engine['forkchoiceUpdated']>>;
    try {
      fcu = await this.#engine.forkchoiceUpdated(
        {
          headBlockHash: fromHex(parent.hash),
          safeBlockHash: fromHex(h.safe.hash),
          finalizedBlockHash: fromHex(h.finalized.hash),
        },
        engineAttrs,
      );
    } catch (err) {
      if (err instanceof TernError && err.code === 'ENGINE_INVALID_ATTRIBUTES')
        return { ok: false, reason: err.message };
      throw err;
    }
    if (fcu.payloadStatus.status === 'INVALID') {
      return {
        ok: false,
        reason: `forkchoiceUpdated with attributes: INVALID ${fcu.payloadStatus.validationError ?? ''}`.trim(),
      };
    }
    if (fcu.payloadStatus.status !== 'VALID') throw statusError('forkchoiceUpdated', fcu.payloadStatus);
    if (fcu.payloadId === null) throw temporary('ENGINE_NO_PAYLOAD_ID', 'forkchoiceUpdated started no payload build');
    const env = await this.#engine.getPayload(fcu.payloadId, attributes.timestamp);
    const payload = env.executionPayload;
    const status = await this.#engine.newPayload(
      payload,
      env.parentBeaconBlockRoot ?? attributes.parentBeaconBlockRoot,
    );
    if (status.status === 'INVALID') {
      return { ok: false, reason: `newPayload: INVALID ${status.validationError ?? ''}`.trim() };
    }
    if (status.status !== 'VALID') throw statusError('newPayload', status);
    const ref = this.#refOf(payload);
    const next: EngineHeads = {
      ...h,
      unsafe: ref,
      ...(derived ? { pendingSafe: ref } : {}),
      ...(derived && opts.safe ? { safe: ref } : {}),
    };
    this.#setHeads(next);
    await this.forkchoiceUpdate();
    this.#log.debug('Inserted block', {
      number: ref.number,
      hash: ref.hash,
      txs: payload.transactions.length,
      derived,
    });
    return { ok: true, ref, payload };
  }

  /**
   * Inserts a payload built elsewhere (gossip, the sequencer's peer, EL sync) as the new unsafe head. During EL sync
   * (op-node's engine controller): the payload and a forkchoiceUpdated to it are sent even when the engine answers
   * SYNCING (it fetches the missing blocks from its own peers), the unsafe head follows the payloads, and the first
   * VALID answer ends the sync: that block becomes unsafe, safe and finalized, and derivation goes on after it.
   * `local`: a block this node's sequencer built on the engine's head; it never starts EL sync (nor waits for one).
   */
  async insertUnsafePayload(
    payload: ExecutionPayload,
    parentBeaconBlockRoot?: Uint8Array,
    opts: { local?: boolean } = {},
  ): Promise<L2BlockRef> {
    if (this.#elSync === 'will-start') {
      if (opts.local === true) {
        this.#elSync = 'finished';
        this.#log.info('No EL sync: this node sequences on its engine head');
      } else await this.#startElSync();
    }
    const syncing = this.#elSync === 'started';
    const waiting = (s: PayloadStatus['status']) => syncing && (s === 'SYNCING' || s === 'ACCEPTED');
    const status = await this.#engine.newPayload(payload, parentBeaconBlockRoot);
    if (status.status !== 'VALID' && !waiting(status.status)) throw statusError('newPayload', status);
    const ref = this.#refOf(payload);
    if (!syncing) {
      this.#setHeads({ ...this.heads, unsafe: ref });
      await this.forkchoiceUpdate();
      return ref;
    }
    // The engine has the block's parent state once newPayload is VALID: the block is final for this node then.
    const final = status.status === 'VALID';
    const h = this.heads;
    const fcu = await this.#engine.forkchoiceUpdated({
      headBlockHash: payload.blockHash,
      safeBlockHash: final ? payload.blockHash : fromHex(h.safe.hash),
      finalizedBlockHash: final ? payload.blockHash : fromHex(h.finalized.hash),
    });
    const fcuStatus = fcu.payloadStatus.status;
    if (fcuStatus !== 'VALID' && fcuStatus !== 'SYNCING') throw statusError('forkchoiceUpdated', fcu.payloadStatus);
    if (fcuStatus !== 'VALID') {
      this.#setHeads({ ...h, unsafe: ref });
      this.#log.debug('EL sync under way', { target: ref.number, hash: ref.hash });
      return ref;
    }
    this.#elSync = 'finished';
    this.#setHeads({ unsafe: ref, pendingSafe: ref, safe: ref, finalized: ref });
    // Synced by the forkchoiceUpdated itself: the labels still point at the old blocks.
    if (!final) await this.forkchoiceUpdate();
    this.#log.info('Finished EL sync', {
      syncDuration: `${((performance.now() - this.#elSyncStart) / 1000).toFixed(1)}s`,
      finalizedBlock: `${ref.hash}:${ref.number}`,
    });
    return ref;
  }

  async #startElSync(): Promise<void> {
    let finalized: L2BlockRef | undefined;
    try {
      finalized = await this.#engine.l2BlockRefByLabel('finalized');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (finalized === undefined || finalized.hash === this.#cfg.genesis.l2.hash) {
      this.#elSync = 'started';
      this.#elSyncStart = performance.now();
      this.#log.info('Starting EL sync');
    } else {
      this.#elSync = 'finished';
      this.#log.info('Skipping EL sync and going straight to CL sync because there is a finalized block', {
        id: `${finalized.hash}:${finalized.number}`,
      });
    }
  }

  #refOf(p: ExecutionPayload): L2BlockRef {
    return blockRefFromBlock(
      this.#cfg,
      {
        hash: toHex(p.blockHash),
        number: Number(p.blockNumber),
        parentHash: toHex(p.parentHash),
        timestamp: Number(p.timestamp),
        gasLimit: p.gasLimit,
        extraData: p.extraData,
      },
      p.transactions[0],
    );
  }

  #setHeads(next: EngineHeads): void {
    const prev = this.#heads;
    this.#heads = next;
    const reason = syncProgressReason(prev, next);
    if (reason !== undefined) this.#log.info('Sync progress', syncProgressFields(reason, next));
    for (const listener of this.#listeners) listener(prev, next);
    const m = this.#metrics?.recordL2Ref;
    if (m === undefined) return;
    if (prev?.unsafe.hash !== next.unsafe.hash) m('l2_unsafe', next.unsafe);
    if (prev?.pendingSafe.hash !== next.pendingSafe.hash) m('l2_pending_safe', next.pendingSafe);
    if (prev?.safe.hash !== next.safe.hash) m('l2_safe', next.safe);
    if (prev?.finalized.hash !== next.finalized.hash) m('l2_finalized', next.finalized);
  }
}
