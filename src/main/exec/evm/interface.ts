// What the state transition takes and gives: a transaction in the field shape @ethereumjs/tx's classes already
// have (so a decoded TypedTransaction passes as is), and the outcome a receipt is built from.
import type { Address } from '@ethereumjs/util';

export const TX_TYPE_LEGACY = 0;
export const TX_TYPE_ACCESS_LIST = 1;
export const TX_TYPE_DYNAMIC_FEE = 2;
export const TX_TYPE_BLOB = 3;
export const TX_TYPE_SET_CODE = 4;
/** OP-Stack deposit transaction (0x7e): branches off at the top of the state transition. */
export const TX_TYPE_DEPOSIT = 0x7e;

/** An access list entry in bytes form: [address, storage keys]. */
export type AccessListItemBytes = readonly [Uint8Array, readonly Uint8Array[]];

/** An EIP-7702 authorization in bytes form: [chainId, address, nonce, yParity, r, s]. */
export type AuthorizationBytes = readonly Uint8Array[];

/** The fields the state transition reads. @ethereumjs/tx's transaction classes satisfy it structurally. */
export interface TransactionLike {
  readonly type: number;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  /** Absent for contract creation. */
  readonly to?: Address | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  /** Legacy and EIP-2930 transactions. */
  readonly gasPrice?: bigint;
  /** EIP-1559 and later. */
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  /** EIP-2930 and later. */
  readonly accessList?: readonly AccessListItemBytes[];
  /** EIP-4844: `0x`-prefixed 32-byte hashes. */
  readonly blobVersionedHashes?: readonly string[];
  readonly maxFeePerBlobGas?: bigint;
  /** EIP-7702. */
  readonly authorizationList?: readonly AuthorizationBytes[];
  /**
   * The consensus encoding: OP chains price its L1 data cost. Absent for calls (eth_call), which pay none.
   * (@ethereumjs/tx classes have a raw() method instead: treated as absent.)
   */
  readonly raw?: Uint8Array | (() => unknown);
  /** OP deposit (0x7e) fields. */
  readonly deposit?: DepositFields | undefined;
}

/** The fields only a deposit transaction has (its sender is `from`: deposits carry no signature). */
export interface DepositFields {
  readonly sourceHash: Uint8Array;
  readonly from: Uint8Array;
  readonly mint: bigint;
  readonly isSystemTx: boolean;
}

/** A log as the EVM emits it and receipts encode it: [address, topics, data]. */
export type Log = [address: Uint8Array, topics: Uint8Array[], data: Uint8Array];

/** The outcome of one applied transaction. */
export interface TxResult {
  /** 1 on success, 0 when execution failed (reverted, out of gas, ...): the fees are charged either way. */
  status: 0 | 1;
  /** Gas charged to the sender (after refunds and the EIP-7623 floor): the receipt's gas used. */
  gasUsed: bigint;
  /** Gas used by the block's transactions so far, this one included. */
  cumulativeGasUsed: bigint;
  /** Blob gas of this transaction (0 for non-blob transactions). */
  blobGasUsed: bigint;
  /** The price per gas the sender paid. */
  effectiveGasPrice: bigint;
  logs: Log[];
  /** The new contract's address, for a creation that succeeded. */
  contractAddress: Address | undefined;
  /** Returned or revert data of the top frame. */
  returnValue: Uint8Array;
  /** The EVM error of a failed execution ('revert', 'out of gas', ...). */
  error: string | undefined;
  /** OP chains, non-deposit transactions: the L1 data fee charged and the L1 gas it was priced at. */
  l1Fee?: bigint;
  l1GasUsed?: bigint;
  /** OP chains (Isthmus): the operator fee charged. */
  operatorFee?: bigint;
  /** OP chains (Jovian): the transaction's DA footprint (counted in the block's blobGasUsed). */
  daFootprint?: bigint;
  /** Deposits from Regolith: the sender's nonce before the deposit ran (receipts record it). */
  depositNonce?: bigint;
}
