// Finality from L1 finality (op-node's rollup/finality): each time derivation makes an L2 block safe, remember the
// L1 block it was derived from; when L1 finalizes a block, the highest L2 block derived from data at or before it
// is final. The L1 block is checked to be canonical before it is trusted. Records are dropped on a pipeline reset.
import type { Logger } from '../../common/logger/index.js';
import type { L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';

/** op-node's lookback: how many (L2 safe, L1 derived-from) pairs are kept, enough for the L1 finality delay. */
export const FINALITY_LOOKBACK = 4 * 32 + 1;

export interface FinalizerL1 {
  blockRefByNumber(num: number): Promise<L1BlockRef>;
}

export interface FinalizerDeps {
  logger: Logger;
  /** Finalizes the L2 block in the engine (EngineController.finalize). */
  finalize(ref: L2BlockRef): Promise<void>;
  /** The engine's finalized head now. */
  finalizedHead(): L2BlockRef;
}

interface Record {
  l2: L2BlockRef;
  l1: L1BlockRef;
}

export class Finalizer {
  readonly #l1: FinalizerL1;
  readonly #deps: FinalizerDeps;
  readonly #log: Logger;
  #records: Record[] = [];
  #finalizedL1: L1BlockRef | undefined;
  #triedAt = -1;

  constructor(l1: FinalizerL1, deps: FinalizerDeps) {
    this.#l1 = l1;
    this.#deps = deps;
    this.#log = deps.logger.child('finalizer');
  }

  /** The L1 block the finalizer accepts as finalized (sync status current_l1_finalized). */
  get finalizedL1(): L1BlockRef | undefined {
    return this.#finalizedL1;
  }

  /** Derivation made `l2` safe from the data of `l1`. */
  onDerived(l2: L2BlockRef, l1: L1BlockRef): void {
    const last = this.#records[this.#records.length - 1];
    if (last !== undefined && last.l1.hash === l1.hash) {
      if (l2.number > last.l2.number) last.l2 = l2;
      return;
    }
    this.#records.push({ l2, l1 });
    if (this.#records.length > FINALITY_LOOKBACK) this.#records.splice(0, this.#records.length - FINALITY_LOOKBACK);
  }

  /** A new finalized L1 block was signalled. Returns true when there may be something to finalize. */
  onL1Finalized(ref: L1BlockRef): boolean {
    if (this.#finalizedL1 !== undefined && ref.number < this.#finalizedL1.number) {
      this.#log.warn('Ignoring L1 finalized block going backwards', {
        prev: this.#finalizedL1.number,
        next: ref.number,
      });
      return false;
    }
    this.#finalizedL1 = ref;
    return true;
  }

  /** Finalizes the highest L2 block derived from finalized L1 data, if it moves finality forward. */
  async tryFinalize(): Promise<void> {
    const fin = this.#finalizedL1;
    if (fin === undefined) return;
    let best: Record | undefined;
    for (const r of this.#records) {
      if (r.l1.number > fin.number) break;
      if (best === undefined || r.l2.number > best.l2.number) best = r;
    }
    if (best === undefined || best.l2.number <= this.#deps.finalizedHead().number) return;
    if (this.#triedAt === best.l2.number) return;
    // The derived-from block must still be canonical, or the record is stale (an L1 reorg in between).
    const canonical = await this.#l1.blockRefByNumber(best.l1.number);
    if (canonical.hash !== best.l1.hash) {
      this.#log.warn('Derived-from L1 block is no longer canonical, not finalizing', {
        l1: best.l1.number,
        recorded: best.l1.hash,
        canonical: canonical.hash,
      });
      this.#triedAt = best.l2.number;
      return;
    }
    await this.#deps.finalize(best.l2);
    this.#records = this.#records.filter((r) => r.l2.number > best.l2.number);
  }

  reset(): void {
    this.#records = [];
    this.#triedAt = -1;
  }
}
