// Shared derivation types: block references (primitives/rollup/blockRef.ts), payload attributes, the system
// config as derivation tracks it, and error helpers by severity. Stages follow frameQueue.ts's contract: `next*()`
// resolves to undefined when nothing more comes until the origin advances (op-node's io.EOF). Hashes and addresses are lowercase 0x-hex strings so
// refs compare with ===; block numbers and timestamps are JS numbers (both stay far below 2^53).
import { TernError } from '../../common/errors.js';
import type { BlockId, L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';

export { toHex } from '../../primitives/bytes.js';

export type Hex = string;

export type { BlockId, L1BlockRef, L2BlockRef };

/** PayloadAttributes with the OP extensions (exec-engine.md "Extended PayloadAttributes"). */
export interface PayloadAttributes {
  timestamp: number;
  prevRandao: Uint8Array;
  suggestedFeeRecipient: Hex;
  /** Empty from Canyon, absent before. */
  withdrawals?: [] | undefined;
  /** Ecotone and later. */
  parentBeaconBlockRoot?: Uint8Array | undefined;
  transactions: Uint8Array[];
  noTxPool: boolean;
  gasLimit: bigint;
  /** 8 bytes, Holocene and later (zeros in the activation block). */
  eip1559Params?: Uint8Array | undefined;
  /** Jovian and later. */
  minBaseFee?: bigint | undefined;
}

/** What the pipeline hands the engine controller. */
export interface AttributesWithParent {
  attributes: PayloadAttributes;
  parent: L2BlockRef;
  /** The L1 block the batch was fully derived from (safe-head-by-L1 bookkeeping). */
  derivedFrom: L1BlockRef;
  /** Last block of its span batch (or a singular batch): the engine may then advance the safe head. */
  isLastInSpan: boolean;
}

/** op-node's eth.SystemConfig: the L1 SystemConfig contract's values as derivation tracks them. */
export interface SystemConfig {
  batcherAddr: Hex;
  /** Pre-Ecotone L1 fee overhead (zeroed by Ecotone-era updates). */
  overhead: Uint8Array;
  /** Pre-Ecotone scalar, or the versioned Ecotone scalar (version byte 0 or 1). */
  scalar: Uint8Array;
  gasLimit: bigint;
  /** 8 bytes: uint32 denominator ++ uint32 elasticity (Holocene); zeros = unset. */
  eip1559Params: Uint8Array;
  /** 32 bytes: uint32 scalar at [20,24), uint64 constant at [24,32) (Isthmus). */
  operatorFeeParams: Uint8Array;
  /** Jovian. */
  minBaseFee: bigint;
  /** Jovian (uint16); 0 means the L1Block default of 400. */
  daFootprintGasScalar: number;
}

export function resetError(code: string, message: string, cause?: unknown): TernError {
  return new TernError(code, message, cause === undefined ? { severity: 'reset' } : { severity: 'reset', cause });
}

export function criticalError(code: string, message: string, cause?: unknown): TernError {
  return new TernError(code, message, cause === undefined ? { severity: 'critical' } : { severity: 'critical', cause });
}

export function temporaryError(code: string, message: string, cause?: unknown): TernError {
  return new TernError(
    code,
    message,
    cause === undefined ? { severity: 'temporary' } : { severity: 'temporary', cause },
  );
}

export function fromHex(h: string): Uint8Array {
  const s = h.startsWith('0x') || h.startsWith('0X') ? h.slice(2) : h;
  if (s.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(s)) throw new TernError('HEX_INVALID', `invalid hex: ${h}`);
  return Uint8Array.from(Buffer.from(s, 'hex'));
}

export function sameHex(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

export function blockIdString(b: BlockId | undefined): string {
  return b === undefined ? 'none' : `${b.hash}:${b.number}`;
}

/** Counters for everything derivation drops (never a crash): the metrics factory reads these. */
export interface DropCounter {
  drop(kind: string, reason: string): void;
}

export const noopDropCounter: DropCounter = { drop() {} };
