// op-node's JSON shapes (op-service/eth): block references with plain-number fields, the sync status with
// snake_case keys and zeroed references for what is not known yet, the output response and the safe-head answer.
import type { BlockId, L1BlockRef, L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { toHex } from '../derive/types.js';
import type { SyncStatus } from '../driver/driver.js';
import type { OutputV0 } from '../engine/interface.js';
import { OUTPUT_VERSION_V0, outputRootV0 } from '../engine/output.js';
import type { SafeHeadAt } from '../safedb/safedb.js';

const ZERO_HASH = `0x${'00'.repeat(32)}`;

export interface BlockIdJson {
  hash: string;
  number: number;
}

export interface L1BlockRefJson extends BlockIdJson {
  parentHash: string;
  timestamp: number;
}

export interface L2BlockRefJson extends L1BlockRefJson {
  l1origin: BlockIdJson;
  sequenceNumber: number;
}

export function blockIdJson(b: BlockId | undefined): BlockIdJson {
  return { hash: b?.hash ?? ZERO_HASH, number: b?.number ?? 0 };
}

export function l1RefJson(r: L1BlockRef | undefined): L1BlockRefJson {
  return {
    hash: r?.hash ?? ZERO_HASH,
    number: r?.number ?? 0,
    parentHash: r?.parentHash ?? ZERO_HASH,
    timestamp: r?.timestamp ?? 0,
  };
}

export function l2RefJson(r: L2BlockRef | undefined): L2BlockRefJson {
  return {
    hash: r?.hash ?? ZERO_HASH,
    number: r?.number ?? 0,
    parentHash: r?.parentHash ?? ZERO_HASH,
    timestamp: r?.timestamp ?? 0,
    l1origin: blockIdJson(r?.l1origin),
    sequenceNumber: r?.sequenceNumber ?? 0,
  };
}

export function syncStatusJson(s: SyncStatus): Record<string, unknown> {
  return {
    current_l1: l1RefJson(s.currentL1),
    current_l1_finalized: l1RefJson(s.currentL1Finalized),
    head_l1: l1RefJson(s.headL1),
    safe_l1: l1RefJson(s.safeL1),
    finalized_l1: l1RefJson(s.finalizedL1),
    unsafe_l2: l2RefJson(s.unsafeL2),
    safe_l2: l2RefJson(s.safeL2),
    finalized_l2: l2RefJson(s.finalizedL2),
    pending_safe_l2: l2RefJson(s.pendingSafeL2),
    cross_unsafe_l2: l2RefJson(s.crossUnsafeL2),
    local_safe_l2: l2RefJson(s.localSafeL2),
  };
}

/** op-node's eth.OutputResponse. */
export function outputResponseJson(o: OutputV0, status: SyncStatus): Record<string, unknown> {
  return {
    version: toHex(OUTPUT_VERSION_V0),
    outputRoot: toHex(outputRootV0(o.stateRoot, o.messagePasserStorageRoot, o.blockHash)),
    blockRef: l2RefJson(o.ref),
    withdrawalStorageRoot: toHex(o.messagePasserStorageRoot),
    stateRoot: toHex(o.stateRoot),
    syncStatus: syncStatusJson(status),
  };
}

/** op-node's eth.SafeHeadResponse. */
export function safeHeadResponseJson(s: SafeHeadAt): Record<string, unknown> {
  return { l1Block: blockIdJson(s.l1Block), safeHead: blockIdJson(s.safeHead) };
}
