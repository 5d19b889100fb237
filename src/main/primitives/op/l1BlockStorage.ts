// Where the L1Block predeploy keeps the fee parameters execution reads (op-geth rollup_cost.go reads the slots
// directly, after the block's deposits ran). Packed slots are big-endian words; Solidity packs from the low end:
//   slot 1: l1BaseFee            slot 5: overhead (Bedrock)     slot 6: scalar (Bedrock)
//   slot 3: bytes [16,20) baseFeeScalar, [20,24) blobBaseFeeScalar, [24,32) sequenceNumber   (Ecotone on)
//   slot 7: blobBaseFee (Ecotone on)
//   slot 8: bytes [18,20) daFootprintGasScalar (Jovian), [20,24) operatorFeeScalar, [24,32) operatorFeeConstant
import { atLeast, type OpFork } from './forks.js';
import type { L1CostFork, L1CostParams } from './l1Cost.js';
import type { OperatorFeeParams } from './operatorFee.js';

export const L1_BLOCK_SLOTS = {
  number: 0n,
  l1BaseFee: 1n,
  hash: 2n,
  feeScalars: 3n,
  batcherHash: 4n,
  overhead: 5n,
  scalar: 6n,
  blobBaseFee: 7n,
  operatorFeeParams: 8n,
} as const;

const U16 = 0xffffn;
const U32 = 0xffff_ffffn;
const U64 = 0xffff_ffff_ffff_ffffn;

export function unpackFeeScalars(slot3: bigint): { baseFeeScalar: bigint; blobBaseFeeScalar: bigint } {
  return { baseFeeScalar: (slot3 >> 96n) & U32, blobBaseFeeScalar: (slot3 >> 64n) & U32 };
}

export function unpackOperatorFeeParams(slot8: bigint): OperatorFeeParams & { daFootprintGasScalar: bigint } {
  return {
    operatorFeeConstant: slot8 & U64,
    operatorFeeScalar: (slot8 >> 64n) & U32,
    daFootprintGasScalar: (slot8 >> 96n) & U16,
  };
}

export interface L1BlockFeeState extends L1CostParams, OperatorFeeParams {
  /**
   * The cost function to use: the fork's, except in the first Ecotone block, where the L1Block contract still
   * holds Bedrock values (blob base fee and both scalars zero) and op-geth keeps pricing like Regolith.
   */
  costFork: L1CostFork;
  /** Jovian on: the DA footprint gas scalar as stored (the L1-info deposit sets 400 when configured as 0). */
  daFootprintGasScalar: bigint;
}

/** The fee parameters in effect for the block's user transactions, read after its deposits executed. */
export function readL1CostParams(readSlot: (slot: bigint) => bigint, fork: OpFork): L1BlockFeeState {
  const l1BaseFee = readSlot(L1_BLOCK_SLOTS.l1BaseFee);
  const none = { operatorFeeScalar: 0n, operatorFeeConstant: 0n, daFootprintGasScalar: 0n };
  const bedrock = (): L1BlockFeeState => ({
    l1BaseFee,
    overhead: readSlot(L1_BLOCK_SLOTS.overhead),
    scalar: readSlot(L1_BLOCK_SLOTS.scalar),
    costFork: atLeast(fork, 'regolith') ? 'regolith' : 'bedrock',
    ...none,
  });
  if (!atLeast(fork, 'ecotone')) return bedrock();
  const l1BlobBaseFee = readSlot(L1_BLOCK_SLOTS.blobBaseFee);
  const scalars = unpackFeeScalars(readSlot(L1_BLOCK_SLOTS.feeScalars));
  if (l1BlobBaseFee === 0n && scalars.baseFeeScalar === 0n && scalars.blobBaseFeeScalar === 0n) return bedrock();
  const state: L1BlockFeeState = {
    l1BaseFee,
    l1BlobBaseFee,
    ...scalars,
    costFork: atLeast(fork, 'fjord') ? 'fjord' : 'ecotone',
    ...none,
  };
  if (atLeast(fork, 'isthmus')) {
    const op = unpackOperatorFeeParams(readSlot(L1_BLOCK_SLOTS.operatorFeeParams));
    state.operatorFeeScalar = op.operatorFeeScalar;
    state.operatorFeeConstant = op.operatorFeeConstant;
    if (atLeast(fork, 'jovian')) state.daFootprintGasScalar = op.daFootprintGasScalar;
  }
  return state;
}
