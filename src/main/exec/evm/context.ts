// The per-block execution context shared by the Ethereum state transition (./transition.ts) and the OP deposit
// transition (./op/deposit.ts): kept apart from the Executor class so both can use it without an import cycle.
import type { EVM } from '@ethereumjs/evm';
import type { Address } from '@ethereumjs/util';
import type { FlatState } from '../state/flatState.js';
import type { BlockEnv } from './env.js';
import type { TransactionLike, TxResult } from './interface.js';
import type { OpBlockFees } from './op/blockFees.js';

/** What the state transition needs of an executor. */
export interface ExecutorCore {
  readonly state: FlatState;
  readonly evm: EVM;
  /** Precompiles warm in every transaction (EIP-2929). */
  warmPrecompiles(): readonly string[];
  /** Called around every transaction when set (../tracing/: --vmtrace, debug_trace*); unset costs nothing. */
  readonly tracer?: TxHooks | undefined;
  /** Whether plain value transfers may skip the EVM in the current block (./plainTransfer.ts). */
  readonly plainTransfers?: boolean;
}

/** A tracer's view of a transaction: it attaches to `block.executor.evm` at the start and detaches at the end. */
export interface TxHooks {
  onTxStart(block: BlockContext, tx: TransactionLike, sender: Address): void;
  /** `result` is undefined when the transaction was rejected or execution was aborted (`error` says why). */
  onTxEnd(result: TxResult | undefined, error: unknown): void;
}

/** The block being executed: its environment and the gas its transactions used so far. */
export interface BlockContext {
  readonly executor: ExecutorCore;
  readonly env: BlockEnv;
  /** Gas used by the transactions applied so far (the next receipt's cumulative gas starts here). */
  gasUsed: bigint;
  /** Blob gas used by the transactions applied so far (from Jovian on an OP chain: the DA footprint). */
  blobGasUsed: bigint;
  /** OP chains: the block's L1-cost and operator-fee parameters, read once from L1Block when first needed. */
  readonly opFees?: OpBlockFees | undefined;
}
