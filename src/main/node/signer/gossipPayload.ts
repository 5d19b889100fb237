// The block payload as the gossip topics carry it (rollup-node-p2p.md "Block encoding"): the SSZ
// ExecutionPayload of the block's version — v1 (pre-Canyon), v2 (+withdrawals), v3 (Ecotone: +blob gas fields,
// prefixed by the parent beacon block root), v4 (Isthmus: +withdrawalsRoot) — without the signature and before
// snappy. These are the bytes whose keccak256 is the signed payload_hash.
import { TernError } from '../../common/errors.js';
import { isCanyon, isEcotone, isIsthmus, type RollupConfig } from '../../primitives/rollup/config.js';
import type { ExecutionPayload } from '../engine/interface.js';

export type BlockVersion = 1 | 2 | 3 | 4;

/** The gossip topic version of a block by its timestamp. */
export function blockVersion(cfg: RollupConfig, timestamp: number): BlockVersion {
  if (isIsthmus(cfg, timestamp)) return 4;
  if (isEcotone(cfg, timestamp)) return 3;
  if (isCanyon(cfg, timestamp)) return 2;
  return 1;
}

// parent, feeRecipient, stateRoot, receiptsRoot, logsBloom, prevRandao, number, gasLimit, gasUsed, timestamp,
// extraData offset, baseFee (u256), blockHash, transactions offset.
const FIXED_V1 = 32 + 20 + 32 + 32 + 256 + 32 + 8 + 8 + 8 + 8 + 4 + 32 + 32 + 4;
const FIXED_V2 = FIXED_V1 + 4;
const FIXED_V3 = FIXED_V2 + 8 + 8;
const FIXED_V4 = FIXED_V3 + 32;
const WITHDRAWAL_SIZE = 8 + 8 + 20 + 8;
const MAX_EXTRA_DATA = 32;

const FIXED: Record<BlockVersion, number> = { 1: FIXED_V1, 2: FIXED_V2, 3: FIXED_V3, 4: FIXED_V4 };

function bad(message: string): TernError {
  return new TernError('GOSSIP_PAYLOAD', message);
}

class Writer {
  readonly buf: Uint8Array;
  readonly view: DataView;
  at = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
  }
  bytes(b: Uint8Array, len?: number, what = 'field'): void {
    if (len !== undefined && b.length !== len) throw bad(`${what} must be ${len} bytes, got ${b.length}`);
    this.buf.set(b, this.at);
    this.at += b.length;
  }
  u32(n: number): void {
    this.view.setUint32(this.at, n, true);
    this.at += 4;
  }
  u64(n: bigint): void {
    this.view.setBigUint64(this.at, BigInt.asUintN(64, n), true);
    this.at += 8;
  }
  u256(n: bigint): void {
    if (n < 0n || n >= 1n << 256n) throw bad(`baseFeePerGas ${n} does not fit in 256 bits`);
    for (let i = 0; i < 4; i++) this.u64((n >> BigInt(64 * i)) & 0xffff_ffff_ffff_ffffn);
  }
}

/** SSZ encoding of an ExecutionPayload in the layout of `version`. */
export function encodePayloadSsz(p: ExecutionPayload, version: BlockVersion): Uint8Array {
  if (p.extraData.length > MAX_EXTRA_DATA) throw bad(`extraData is ${p.extraData.length} bytes, at most 32 allowed`);
  const withdrawals = version >= 2 ? (p.withdrawals ?? []) : [];
  if (version < 2 && p.withdrawals !== undefined && p.withdrawals.length > 0) {
    throw bad('a v1 payload cannot carry withdrawals');
  }
  const fixed = FIXED[version];
  const txBytes = p.transactions.reduce((n, t) => n + 4 + t.length, 0);
  const w = new Writer(fixed + p.extraData.length + txBytes + withdrawals.length * WITHDRAWAL_SIZE);
  w.bytes(p.parentHash, 32, 'parentHash');
  w.bytes(p.feeRecipient, 20, 'feeRecipient');
  w.bytes(p.stateRoot, 32, 'stateRoot');
  w.bytes(p.receiptsRoot, 32, 'receiptsRoot');
  w.bytes(p.logsBloom, 256, 'logsBloom');
  w.bytes(p.prevRandao, 32, 'prevRandao');
  w.u64(p.blockNumber);
  w.u64(p.gasLimit);
  w.u64(p.gasUsed);
  w.u64(p.timestamp);
  const extraAt = fixed;
  const txAt = extraAt + p.extraData.length;
  const wdAt = txAt + txBytes;
  w.u32(extraAt);
  w.u256(p.baseFeePerGas);
  w.bytes(p.blockHash, 32, 'blockHash');
  w.u32(txAt);
  if (version >= 2) w.u32(wdAt);
  if (version >= 3) {
    w.u64(p.blobGasUsed ?? 0n);
    w.u64(p.excessBlobGas ?? 0n);
  }
  if (version >= 4) {
    if (p.withdrawalsRoot === undefined) throw bad('an Isthmus (v4) payload needs withdrawalsRoot');
    w.bytes(p.withdrawalsRoot, 32, 'withdrawalsRoot');
  }
  w.bytes(p.extraData);
  // A list of variable-size items: one offset per item (relative to the list start), then the items.
  let off = p.transactions.length * 4;
  for (const t of p.transactions) {
    w.u32(off);
    off += t.length;
  }
  for (const t of p.transactions) w.bytes(t);
  for (const wd of withdrawals) {
    w.u64(wd.index);
    w.u64(wd.validatorIndex);
    w.bytes(wd.address, 20, 'withdrawal address');
    w.u64(wd.amount);
  }
  return w.buf;
}

/**
 * The signed part of a gossip message: the SSZ payload (v1, v2), or parentBeaconBlockRoot ‖ SSZ payload (v3, v4).
 */
export function gossipPayload(
  cfg: RollupConfig,
  payload: ExecutionPayload,
  parentBeaconBlockRoot?: Uint8Array | undefined,
): { version: BlockVersion; bytes: Uint8Array } {
  const version = blockVersion(cfg, Number(payload.timestamp));
  const ssz = encodePayloadSsz(payload, version);
  if (version < 3) return { version, bytes: ssz };
  if (parentBeaconBlockRoot === undefined || parentBeaconBlockRoot.length !== 32) {
    throw bad(`a v${version} block needs its 32-byte parent beacon block root`);
  }
  const out = new Uint8Array(32 + ssz.length);
  out.set(parentBeaconBlockRoot, 0);
  out.set(ssz, 32);
  return { version, bytes: out };
}
