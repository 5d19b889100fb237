// rollup.json for the devnet, in op-node's format: all forks through Isthmus at L2 genesis (Jovian optional), or
// through Holocene with Isthmus and Jovian scheduled after it, the devnet's L1 contracts, and the genesis system config that matches the L2 genesis header.
import { encodeEip1559Params } from '../primitives/op/eip1559.js';
import { EIP1559, L1_PORTAL_ADDRESS, L1_SYSTEM_CONFIG_ADDRESS, type ScheduledUpgrades } from './genesis.js';

/** op-devnet's L1 fee scalars (Ecotone encoding), the values op-deployer's intent file defaults to. */
export const BASE_FEE_SCALAR = 1368n;
export const BLOB_BASE_FEE_SCALAR = 810949n;

/** Ecotone's versioned scalar: 0x01 ‖ 0… ‖ uint32 blobBaseFeeScalar ‖ uint32 baseFeeScalar. */
export function ecotoneScalar(baseFeeScalar: bigint, blobBaseFeeScalar: bigint): string {
  const v = (1n << 248n) | (blobBaseFeeScalar << 32n) | baseFeeScalar;
  return `0x${v.toString(16).padStart(64, '0')}`;
}

export interface DevnetRollupOptions {
  l1: { hash: string; number: number; time: number };
  l2: { hash: string; number: number; time: number };
  l1ChainId: bigint;
  l2ChainId: bigint;
  blockTime: number;
  batcher: string;
  gasLimit: bigint;
  jovian: boolean;
  /** Isthmus (and Jovian) after genesis, seconds after l2.time (the genesis must be l2GenesisJson's with them). */
  scheduled?: ScheduledUpgrades | undefined;
  minBaseFee?: bigint;
  /** Default 200 L1 blocks, op-devnet's value. */
  seqWindowSize?: number;
  /** The alt_da section (tern-devnet --da altda). */
  altDa?: Record<string, unknown> | undefined;
}

export function batchInboxAddress(l2ChainId: bigint): string {
  // op-deployer's convention: 0xff00…00 followed by the chain id.
  return `0xff${l2ChainId.toString().padStart(38, '0')}`;
}

export function devnetRollupJson(o: DevnetRollupOptions): Record<string, unknown> {
  const forks = ['regolith', 'canyon', 'delta', 'ecotone', 'fjord', 'granite', 'holocene'];
  const times: Record<string, number> = {};
  const s = o.scheduled;
  if (s === undefined) {
    forks.push('isthmus');
    if (o.jovian) forks.push('jovian');
  } else {
    times.isthmus_time = o.l2.time + s.isthmus;
    if (s.jovian !== undefined) times.jovian_time = o.l2.time + s.jovian;
  }
  const jovianScheduled = o.jovian || s?.jovian !== undefined;
  const eip1559 = encodeEip1559Params({ denominator: EIP1559.denominatorCanyon, elasticity: EIP1559.elasticity });
  return {
    genesis: {
      l1: { hash: o.l1.hash, number: o.l1.number },
      l2: { hash: o.l2.hash, number: o.l2.number },
      l2_time: o.l2.time,
      system_config: {
        batcherAddr: o.batcher,
        overhead: `0x${'00'.repeat(32)}`,
        scalar: ecotoneScalar(BASE_FEE_SCALAR, BLOB_BASE_FEE_SCALAR),
        gasLimit: Number(o.gasLimit),
        eip1559Params: `0x${Buffer.from(eip1559).toString('hex')}`,
        operatorFeeParams: `0x${'00'.repeat(32)}`,
        ...(jovianScheduled ? { minBaseFee: Number(o.minBaseFee ?? 0n), daFootprintGasScalar: 0 } : {}),
      },
    },
    block_time: o.blockTime,
    max_sequencer_drift: 600,
    seq_window_size: o.seqWindowSize ?? 200,
    channel_timeout: 120,
    l1_chain_id: Number(o.l1ChainId),
    l2_chain_id: Number(o.l2ChainId),
    ...Object.fromEntries(forks.map((f) => [`${f}_time`, 0])),
    ...times,
    batch_inbox_address: batchInboxAddress(o.l2ChainId),
    deposit_contract_address: L1_PORTAL_ADDRESS,
    l1_system_config_address: L1_SYSTEM_CONFIG_ADDRESS,
    chain_op_config: {
      eip1559Elasticity: Number(EIP1559.elasticity),
      eip1559Denominator: Number(EIP1559.denominator),
      eip1559DenominatorCanyon: Number(EIP1559.denominatorCanyon),
    },
    ...(o.altDa === undefined ? {} : { alt_da: o.altDa }),
  };
}
