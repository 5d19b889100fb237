// The OP fee parameters of one block, read from the L1Block predeploy's storage when the first non-deposit
// transaction needs them: by then the block's L1-attributes deposit has run, and no user transaction can change
// L1Block, so the values are the block's (op-geth reads them at the same point; consensus depends on it).
import { type L1BlockFeeState, readL1CostParams } from '../../../primitives/op/l1BlockStorage.js';
import { l1Cost } from '../../../primitives/op/l1Cost.js';
import { operatorFee } from '../../../primitives/op/operatorFee.js';
import type { FlatState } from '../../state/flatState.js';
import { L1_BLOCK_ADDRESS } from './constants.js';
import { latestOpFork, type OpForks } from './forks.js';

function slotKey(slot: bigint): Uint8Array {
  const key = new Uint8Array(32);
  let v = slot;
  for (let i = 31; i >= 0 && v > 0n; i--) {
    key[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return key;
}

/** What the state transition asks about OP fees, per block. */
export class OpBlockFees {
  readonly forks: OpForks;
  private readonly state: FlatState;
  private loaded: L1BlockFeeState | undefined;

  constructor(forks: OpForks, state: FlatState) {
    this.forks = forks;
    this.state = state;
  }

  /** The block's L1Block fee state (read on first use). */
  params(): L1BlockFeeState {
    if (this.loaded === undefined) {
      const read = (slot: bigint) => this.state.getStorageValue(L1_BLOCK_ADDRESS.bytes, slotKey(slot));
      this.loaded = readL1CostParams(read, latestOpFork(this.forks));
    }
    return this.loaded;
  }

  /** The L1 data fee of a transaction (its consensus encoding) and the L1 gas receipts report for it. */
  l1Cost(raw: Uint8Array): { fee: bigint; gasUsed: bigint } {
    const p = this.params();
    return l1Cost(raw, p, p.costFork);
  }

  /** The operator fee for `gas` (0 before Isthmus). */
  operatorFee(gas: bigint): bigint {
    if (!this.forks.isthmus) return 0n;
    return operatorFee(gas, this.params(), latestOpFork(this.forks));
  }

  /**
   * Jovian DA footprint of a transaction from its Fjord L1 gas (estimatedSize · 16): the estimated size times
   * the DA footprint gas scalar.
   */
  daFootprint(l1GasUsed: bigint): bigint {
    return (l1GasUsed / 16n) * this.params().daFootprintGasScalar;
  }
}
