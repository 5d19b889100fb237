// Managed mode (op-node's rollup/interop/managed): the node serves a supervisor the data it needs to verify
// cross-chain messages and follows the supervisor's cross-unsafe, cross-safe and finality decisions.
//
// Outgoing events (op-supervisor's ManagedEvent): `unsafeBlock` when the unsafe head moves, `derivationUpdate` when
// a block is derived from L1 (local-safe), `derivationUpdate` with `derivationOriginUpdate` when derivation moves
// to a new L1 block, all three only for blocks at or after the interop fork; `exhaustL1` when derivation has read
// every L1 block it has, `reset` when derivation resets. In managed mode derivation reads only the L1 blocks the
// supervisor hands over (provideL1, answering exhaustL1), as op-node's managed L1 traversal does. Incoming decisions are kept here (cross-unsafe, cross-safe and its L1
// source, finalized), reported through optimism_syncStatus, and the cross-safe and finalized blocks become the
// engine's forkchoice safe and finalized labels (the engine controller's managed heads).
import type { Logger } from '../../common/logger/index.js';
import type { L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { isInterop, type RollupConfig } from '../../primitives/rollup/config.js';
import { RpcError, serverError } from '../../protocol/jsonrpc/errors.js';
import type { SyncStatus } from '../driver/driver.js';
import type { EngineController, EngineHeads } from '../engine/engineController.js';
import { type Engine, isNotFound, type L2Payload, type OutputV0 } from '../engine/interface.js';
import { type L1BlockRefJson, l1RefJson, l2RefJson } from '../rpc/json.js';
import { EventStream } from './eventStream.js';
import { replacedOutput, replacementAttributes } from './replacement.js';

/** op-node's managed-mode error codes (managed/system.go). */
export const InteropErrorCode = {
  internal: -32603,
  blockNotFound: -39001,
  conflictingBlock: -39002,
  interopInactive: -39003,
} as const;

export interface DerivedPairJson {
  source: L1BlockRefJson;
  derived: L1BlockRefJson;
}

/** op-supervisor's ManagedEvent: exactly one field is set. */
export interface ManagedEvent {
  reset?: string;
  unsafeBlock?: L1BlockRefJson;
  derivationUpdate?: DerivedPairJson;
  exhaustL1?: DerivedPairJson;
  replaceBlock?: { replacement: L1BlockRefJson; invalidated: string };
  derivationOriginUpdate?: L1BlockRefJson;
}

export interface BlockIdParam {
  hash: string;
  number: number;
}

export interface BlockRefParam extends BlockIdParam {
  parentHash: string;
  timestamp: number;
}

export interface ManagedL1 {
  blockRefByHash(hash: `0x${string}`): Promise<L1BlockRef>;
}

export interface ManagedNodeDeps {
  config: RollupConfig;
  engine: Engine;
  controller: EngineController;
  /** Runs engine changes between derivation steps (Driver.runExclusive) and asks for a derivation reset. */
  driver: { runExclusive<T>(fn: () => Promise<T>): Promise<T>; requestReset(): void };
  l1: ManagedL1;
  logger: Logger;
  /** eth_getBlockReceipts of an L2 block, when the engine offers it. */
  blockReceipts?: ((hash: string) => Promise<unknown>) | undefined;
  /** Hands the supervisor's next L1 block to derivation's managed L1 traversal and wakes the driver. */
  provideL1?: ((next: L1BlockRef) => void) | undefined;
}

/** The four fields of op-node's eth.BlockRef taken from an L2 reference. */
export const blockRefOf = (r: L2BlockRef): L1BlockRefJson => l1RefJson(r);

/** eth.OutputV0 has no JSON tags: Go's field names are the keys. */
export function outputV0Json(o: OutputV0): Record<string, string> {
  const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
  return {
    StateRoot: hex(o.stateRoot),
    MessagePasserStorageRoot: hex(o.messagePasserStorageRoot),
    BlockHash: hex(o.blockHash),
  };
}

export class ManagedNode {
  readonly events: EventStream<ManagedEvent>;
  readonly #d: ManagedNodeDeps;
  readonly #log: Logger;
  #crossUnsafe: L2BlockRef | undefined;
  #crossSafe: L2BlockRef | undefined;
  #crossSafeSource: L1BlockRef | undefined;
  #finalized: L2BlockRef | undefined;
  #lastProvidedL1: L1BlockRef | undefined;
  /** The last origin and exhausted L1 block reported, so each is sent once (op-node dedupes them the same way). */
  #lastOriginSent: string | undefined;
  #lastExhaustedSent: string | undefined;

  constructor(deps: ManagedNodeDeps) {
    this.#d = deps;
    this.#log = deps.logger.child('interop', { mode: 'managed', chainId: deps.config.l2ChainId.toString() });
    this.events = new EventStream<ManagedEvent>(this.#log);
  }

  get crossUnsafe(): L2BlockRef | undefined {
    return this.#crossUnsafe;
  }

  get crossSafe(): L2BlockRef | undefined {
    return this.#crossSafe;
  }

  get finalized(): L2BlockRef | undefined {
    return this.#finalized;
  }

  /** The L1 block the supervisor last handed over (interop_provideL1). */
  get providedL1(): L1BlockRef | undefined {
    return this.#lastProvidedL1;
  }

  // ---- outgoing events --------------------------------------------------------------------------------------

  /** The engine controller's heads moved. */
  onHeads(prev: EngineHeads | undefined, next: EngineHeads): void {
    if (prev?.unsafe.hash === next.unsafe.hash) return;
    if (!isInterop(this.#d.config, next.unsafe.timestamp)) return;
    this.events.send({ unsafeBlock: blockRefOf(next.unsafe) });
  }

  /** A block became local-safe, derived from `source`. */
  onDerived(ref: L2BlockRef, source: L1BlockRef): void {
    if (!isInterop(this.#d.config, ref.timestamp)) return;
    this.events.send({ derivationUpdate: { source: l1RefJson(source), derived: blockRefOf(ref) } });
  }

  /** Derivation moved to a new L1 block (op-node's DeriverL1StatusEvent). */
  onOriginAdvanced(origin: L1BlockRef, lastL2: L2BlockRef): void {
    if (!isInterop(this.#d.config, lastL2.timestamp)) return;
    const id = `${origin.number}:${origin.hash}`;
    if (this.#lastOriginSent === id) return;
    this.#lastOriginSent = id;
    const source = l1RefJson(origin);
    this.events.send({ derivationUpdate: { source, derived: blockRefOf(lastL2) }, derivationOriginUpdate: source });
  }

  /** Derivation read every L1 block it has (op-node's ExhaustedL1Event): the supervisor answers with provideL1. */
  onExhaustedL1(origin: L1BlockRef, lastL2: L2BlockRef): void {
    const id = `${origin.number}:${origin.hash}`;
    if (this.#lastExhaustedSent === id) return;
    this.#lastExhaustedSent = id;
    this.#log.info('Exhausted L1 data', { derivedFrom: origin.number, derived: lastL2.number });
    this.events.send({ exhaustL1: { source: l1RefJson(origin), derived: blockRefOf(lastL2) } });
  }

  /** Derivation reset (an L1 reorg, or a forced reset): the same L1 blocks may be reported again. */
  onReset(reason: string): void {
    this.#lastOriginSent = undefined;
    this.#lastExhaustedSent = undefined;
    this.events.send({ reset: reason });
  }

  /** optimism_syncStatus in managed mode: the supervisor's cross-unsafe, cross-safe and finalized heads. */
  syncStatus(local: SyncStatus): SyncStatus {
    return {
      ...local,
      crossUnsafeL2: this.#crossUnsafe ?? local.crossUnsafeL2,
      localSafeL2: local.safeL2,
      safeL2: this.#crossSafe ?? local.safeL2,
      finalizedL2: this.#finalized ?? local.finalizedL2,
    };
  }

  // ---- the interop namespace --------------------------------------------------------------------------------

  chainID(): string {
    return this.#d.config.l2ChainId.toString();
  }

  async #l2ByHash(hash: string): Promise<L2BlockRef> {
    try {
      return await this.#d.engine.l2BlockRefByHash(hash);
    } catch (err) {
      throw serverError(`failed to get L2BlockRef: ${(err as Error).message}`);
    }
  }

  async #l1ByHash(hash: string): Promise<L1BlockRef> {
    try {
      return await this.#d.l1.blockRefByHash(hash as `0x${string}`);
    } catch (err) {
      throw serverError(`failed to get L1BlockRef: ${(err as Error).message}`);
    }
  }

  async updateCrossUnsafe(id: BlockIdParam): Promise<void> {
    const ref = await this.#l2ByHash(id.hash);
    this.#crossUnsafe = ref;
    this.#log.debug('Cross-unsafe head updated', { number: ref.number, hash: ref.hash });
  }

  async updateCrossSafe(derived: BlockIdParam, source: BlockIdParam): Promise<void> {
    const ref = await this.#l2ByHash(derived.hash);
    const l1 = await this.#l1ByHash(source.hash);
    this.#crossSafe = ref;
    this.#crossSafeSource = l1;
    await this.#applyForkchoice();
    this.#log.info('Cross-safe head updated', { number: ref.number, hash: ref.hash, source: l1.number });
  }

  async updateFinalized(id: BlockIdParam): Promise<void> {
    const ref = await this.#l2ByHash(id.hash);
    this.#finalized = ref;
    await this.#applyForkchoice();
    this.#log.info('Finalized head updated by the supervisor', { number: ref.number, hash: ref.hash });
  }

  /** The supervisor's safe and finalized become the engine's forkchoice labels. */
  async #applyForkchoice(): Promise<void> {
    const c = this.#d.controller;
    c.managedHeads = { safe: this.#crossSafe, finalized: this.#finalized };
    if (!c.initialized) return;
    await this.#d.driver.runExclusive(() => c.forkchoiceUpdate());
  }

  get crossSafeSource(): L1BlockRef | undefined {
    return this.#crossSafeSource;
  }

  async anchorPoint(): Promise<DerivedPairJson> {
    const cfg = this.#d.config;
    if (!isInterop(cfg, cfg.genesis.l2Time)) {
      throw new RpcError(InteropErrorCode.interopInactive, 'Interop inactive at genesis');
    }
    let l1: L1BlockRef;
    try {
      l1 = await this.#d.l1.blockRefByHash(cfg.genesis.l1.hash as `0x${string}`);
    } catch (err) {
      throw serverError(`failed to fetch L1 block ref: ${(err as Error).message}`);
    }
    let l2: L2BlockRef;
    try {
      l2 = await this.#d.engine.l2BlockRefByHash(cfg.genesis.l2.hash);
    } catch (err) {
      throw serverError(`failed to fetch L2 block ref: ${(err as Error).message}`);
    }
    return { source: l1RefJson(l1), derived: blockRefOf(l2) };
  }

  async blockRefByNumber(num: number): Promise<L1BlockRefJson> {
    return blockRefOf(await this.#d.engine.l2BlockRefByNumber(num));
  }

  /** op-node's rollup.Config.TargetBlockNumber: the block at a timestamp, which must fall on a block time. */
  targetBlockNumber(timestamp: number): number {
    const cfg = this.#d.config;
    const genesis = cfg.genesis.l2Time;
    if (timestamp < genesis) throw serverError(`did not reach genesis time (${genesis}) yet`);
    const since = timestamp - genesis;
    if (since % cfg.blockTime !== 0) {
      throw serverError(`timestamp ${timestamp} is not aligned with the L2 block time of ${cfg.blockTime}s`);
    }
    return cfg.genesis.l2.number + since / cfg.blockTime;
  }

  async l2BlockRefByTimestamp(timestamp: number): Promise<L2BlockRef> {
    return this.#d.engine.l2BlockRefByNumber(this.targetBlockNumber(timestamp));
  }

  async outputV0AtTimestamp(timestamp: number): Promise<Record<string, string>> {
    const ref = await this.l2BlockRefByTimestamp(timestamp);
    return outputV0Json(await this.#d.engine.outputV0AtBlock(ref.number));
  }

  /** The output the block at `timestamp` had before it was replaced, or its own output when it was not replaced. */
  async pendingOutputV0AtTimestamp(timestamp: number): Promise<Record<string, string>> {
    const ref = await this.l2BlockRefByTimestamp(timestamp);
    if (ref.number > 0) {
      const block = await this.#d.engine.payloadByHash(ref.hash);
      const replaced = replacedOutput(block.payload.transactions);
      if (replaced !== undefined) {
        const [stateRoot, messagePasserStorageRoot, blockHash] = replaced;
        return outputV0Json({ ref, stateRoot, messagePasserStorageRoot, blockHash });
      }
    }
    return outputV0Json(await this.#d.engine.outputV0AtBlock(ref.number));
  }

  /**
   * Replaces an invalid block by a deposits-only block at the same height (with the optimistic-block deposit),
   * reorging out everything built on it; the replacement becomes local-safe when the invalid block was, and a
   * `replaceBlock` event tells the supervisor.
   */
  async invalidateBlock(seal: BlockIdParam & { timestamp: number }): Promise<void> {
    this.#log.info('Invalidating block', { number: seal.number, hash: seal.hash });
    const engine = this.#d.engine;
    let invalid: L2Payload;
    try {
      invalid = await engine.payloadByHash(seal.hash);
    } catch (err) {
      throw serverError(`failed to get block: ${(err as Error).message}`);
    }
    let parent: L2BlockRef;
    try {
      parent = await engine.l2BlockRefByHash(invalid.ref.parentHash);
    } catch (err) {
      throw serverError(`failed to get parent of invalidated block: ${(err as Error).message}`);
    }
    const output = await engine.outputV0AtBlock(invalid.ref.number);
    if (output.ref.hash !== invalid.ref.hash) {
      throw serverError(`block ${seal.hash} is no longer canonical: nothing to invalidate`);
    }
    const attributes = replacementAttributes(invalid, output);
    const c = this.#d.controller;
    const replacement = await this.#d.driver.runExclusive(async () => {
      const h = c.heads;
      const wasSafe = h.safe.number >= invalid.ref.number;
      const below = (r: L2BlockRef) => (r.number >= invalid.ref.number ? parent : r);
      // Heads drop to the parent first, so the forkchoice never names a block the replacement reorgs out.
      await c.reset({
        unsafe: parent,
        safe: below(h.safe),
        finalized: below(h.finalized),
        pendingSafe: below(h.pendingSafe),
      });
      const built = await c.buildBlock(parent, attributes, { safe: wasSafe, derived: wasSafe });
      if (!built.ok) throw serverError(`failed to build the replacement block: ${built.reason}`);
      return built.ref;
    });
    this.#log.info('Replaced block', {
      number: replacement.number,
      replacement: replacement.hash,
      invalidated: seal.hash,
    });
    this.events.send({ replaceBlock: { replacement: blockRefOf(replacement), invalidated: invalid.ref.hash } });
  }

  async fetchReceipts(hash: string): Promise<unknown> {
    if (this.#d.blockReceipts === undefined) {
      throw new RpcError(InteropErrorCode.internal, 'receipts are not available from this engine');
    }
    return this.#d.blockReceipts(hash);
  }

  /** Checks one reset target against the engine's canonical chain, with op-node's errors. */
  async #verifyTarget(id: BlockIdParam, name: string): Promise<L2BlockRef> {
    let ref: L2BlockRef;
    try {
      ref = await this.#d.engine.l2BlockRefByNumber(id.number);
    } catch (err) {
      if (isNotFound(err)) throw new RpcError(InteropErrorCode.blockNotFound, `${name} reset target not found`);
      throw new RpcError(InteropErrorCode.internal, 'failed to find block reference', name);
    }
    if (ref.hash.toLowerCase() !== id.hash.toLowerCase()) {
      throw new RpcError(InteropErrorCode.conflictingBlock, 'conflicting block', l2RefJson(ref));
    }
    return ref;
  }

  /** The supervisor's forced reset: every target must be canonical here; then the heads move and derivation restarts. */
  async reset(
    localUnsafe: BlockIdParam,
    crossUnsafe: BlockIdParam,
    localSafe: BlockIdParam,
    crossSafe: BlockIdParam,
    finalized: BlockIdParam,
  ): Promise<void> {
    this.#log.info('Received reset request', { localUnsafe, crossUnsafe, localSafe, crossSafe, finalized });
    const lUnsafe = await this.#verifyTarget(localUnsafe, 'unsafe');
    const xUnsafe = await this.#verifyTarget(crossUnsafe, 'cross-unsafe');
    const lSafe = await this.#verifyTarget(localSafe, 'safe');
    const xSafe = await this.#verifyTarget(crossSafe, 'cross-safe');
    const fin = await this.#verifyTarget(finalized, 'finalized');
    // Keep unsafe blocks past the target that are still on this chain (op-node searches for the last valid one).
    const latest = await this.#d.engine.l2BlockRefByLabel('latest');
    const unsafe = latest.number >= lUnsafe.number ? latest : lUnsafe;
    this.#crossUnsafe = xUnsafe;
    this.#crossSafe = xSafe;
    this.#finalized = fin;
    const c = this.#d.controller;
    c.managedHeads = { safe: xSafe, finalized: fin };
    await this.#d.driver.runExclusive(() => c.reset({ unsafe, safe: lSafe, finalized: fin }));
    this.#d.driver.requestReset();
  }

  /** The supervisor hands over the next L1 block: derivation's managed L1 traversal reads it next. */
  provideL1(next: BlockRefParam): void {
    this.#log.info('Received next L1 block', { number: next.number, hash: next.hash });
    this.#lastProvidedL1 = next;
    this.#d.provideL1?.(next);
  }
}
