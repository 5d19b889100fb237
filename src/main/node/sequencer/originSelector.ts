// L1 origin selection for the next sequenced block (derivation.md: an L2 block's origin is its parent's or the
// next L1 block; its time may not be before its origin's; past max_sequencer_drift only the next origin will do).
// Like op-node, the sequencer adopts the next origin as soon as the next L2 time reaches it; it reads L1 through a
// source that hides the newest --sequencer.l1-confs blocks, so "next" is only seen once it is that deep.
// --sequencer.recover asks for the next origin eagerly, so a lagging sequencer catches up with L1 (with
// deposit-only blocks, see noTxPoolFor), until it reaches the confirmed L1 tip.
import { TernError } from '../../common/errors.js';
import type { OpUpgrade } from '../../primitives/op/forks.js';
import type { L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { isActivationBlock, maxSequencerDrift, type RollupConfig } from '../../primitives/rollup/config.js';

export type OriginChoice =
  | { kind: 'origin'; origin: L1BlockRef }
  /** The next L1 block is needed to decide (drift exceeded, or recover mode). */
  | { kind: 'need-next' }
  /** The L2 head does not build on `current`, or `next` does not build on it: L1 or L2 reorged. */
  | { kind: 'inconsistent'; reason: string };

/**
 * The origin of the block after `l2Head`, given its origin `current` and, when known, the L1 block after it.
 * Pure: the table tests pin every branch.
 */
export function chooseOrigin(
  cfg: RollupConfig,
  l2Head: L2BlockRef,
  current: L1BlockRef,
  next: L1BlockRef | undefined,
  eager: boolean,
): OriginChoice {
  if (l2Head.l1origin.hash !== current.hash) {
    return {
      kind: 'inconsistent',
      reason: `L2 head ${l2Head.number} has origin ${l2Head.l1origin.hash}, not ${current.hash}`,
    };
  }
  if (next !== undefined && next.parentHash !== current.hash) {
    return {
      kind: 'inconsistent',
      reason: `L1 block ${next.number} (${next.hash}) does not build on origin ${current.hash}`,
    };
  }
  const nextTime = l2Head.timestamp + cfg.blockTime;
  if (next === undefined) {
    if (eager) return { kind: 'need-next' };
    if (nextTime - current.timestamp > maxSequencerDrift(cfg, current.timestamp)) return { kind: 'need-next' };
    return { kind: 'origin', origin: current };
  }
  // An L2 block may not be older than its origin.
  return { kind: 'origin', origin: nextTime >= next.timestamp ? next : current };
}

/** Whether the block may take transactions from the pool: not past the drift, not in recovery, not an upgrade block. */
export function noTxPoolFor(cfg: RollupConfig, l2Time: number, origin: L1BlockRef, recover: boolean): boolean {
  if (recover) return true;
  if (l2Time > origin.timestamp + maxSequencerDrift(cfg, origin.timestamp)) return true;
  const upgradeForks: OpUpgrade[] = ['ecotone', 'fjord', 'isthmus', 'jovian', 'interop'];
  return upgradeForks.some((f) => isActivationBlock(cfg, f, l2Time));
}

/** The L1 reads origin selection needs (a conf-depth source: blocks near the head are "not found"). */
export interface OriginL1Source {
  blockRefByHash(hash: `0x${string}`): Promise<L1BlockRef>;
  blockRefByNumber(num: number): Promise<L1BlockRef>;
}

const isNotFound = (err: unknown) => err instanceof TernError && err.code === 'L1_NOT_FOUND';

/** Caches the current origin and its successor; resets when the L2 head moves elsewhere. */
export class OriginSelector {
  readonly #cfg: RollupConfig;
  readonly #l1: OriginL1Source;
  #current: L1BlockRef | undefined;
  #next: L1BlockRef | undefined;
  recover: boolean;

  constructor(cfg: RollupConfig, l1: OriginL1Source, opts: { recover?: boolean } = {}) {
    this.#cfg = cfg;
    this.#l1 = l1;
    this.recover = opts.recover ?? false;
  }

  reset(): void {
    this.#current = undefined;
    this.#next = undefined;
  }

  /** The origin for the block after `l2Head`; errors: SEQUENCER_ORIGIN_INCONSISTENT (reset), L1 errors (temporary). */
  async findL1Origin(l2Head: L2BlockRef): Promise<L1BlockRef> {
    await this.#sync(l2Head);
    const current = this.#current as L1BlockRef;
    if (this.#next === undefined) await this.#tryNext(current);
    let choice = chooseOrigin(this.#cfg, l2Head, current, this.#next, this.recover);
    if (choice.kind === 'need-next') {
      if (this.recover && this.#next === undefined) {
        // Recovery reached the confirmed L1 tip: continue with normal selection.
        choice = chooseOrigin(this.#cfg, l2Head, current, undefined, false);
      }
      if (choice.kind === 'need-next') {
        throw new TernError(
          'SEQUENCER_NEXT_ORIGIN_REQUIRED',
          `the next L2 block (time ${l2Head.timestamp + this.#cfg.blockTime}) would exceed the sequencer drift on origin ` +
            `${current.number}, and L1 block ${current.number + 1} is not available (yet) at the sequencer's confirmation depth`,
          { severity: 'temporary' },
        );
      }
    }
    if (choice.kind === 'inconsistent') {
      this.reset();
      throw new TernError('SEQUENCER_ORIGIN_INCONSISTENT', `cannot build on the L2 head: ${choice.reason}`, {
        severity: 'reset',
      });
    }
    return choice.origin;
  }

  async #sync(l2Head: L2BlockRef): Promise<void> {
    if (this.#current?.hash === l2Head.l1origin.hash) return;
    if (this.#next?.hash === l2Head.l1origin.hash) {
      this.#current = this.#next;
      this.#next = undefined;
      return;
    }
    this.#current = await this.#l1.blockRefByHash(l2Head.l1origin.hash as `0x${string}`);
    this.#next = undefined;
  }

  async #tryNext(current: L1BlockRef): Promise<void> {
    try {
      const n = await this.#l1.blockRefByNumber(current.number + 1);
      if (this.#current?.hash === current.hash) this.#next = n;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
