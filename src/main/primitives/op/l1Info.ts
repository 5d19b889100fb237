// The L1-info deposit: the first transaction of every L2 block, a call from the depositor account to the L1Block
// predeploy that records the L1 origin and the fee parameters. Calldata by format:
//   bedrock  setL1BlockValues(uint64,uint64,uint256,bytes32,uint64,bytes32,uint256,uint256)  ABI words, 260 bytes
//   ecotone  setL1BlockValuesEcotone()  packed, 164 bytes (also Fjord..Holocene)
//   isthmus  setL1BlockValuesIsthmus()  packed + operatorFeeScalar u32, operatorFeeConstant u64, 176 bytes
//   jovian   setL1BlockValuesJovian()   packed + daFootprintGasScalar u16, 178 bytes
// A fork's activation block still uses the previous format (the contract is upgraded in that block).
import { TernError } from '../errors.js';
import type { DepositTx } from '../tx/deposit/deposit.js';
import { l1InfoDepositSourceHash } from '../tx/deposit/sourceHash.js';

export type L1InfoFormat = 'bedrock' | 'ecotone' | 'isthmus' | 'jovian';

export interface L1BlockInfo {
  number: bigint;
  time: bigint;
  baseFee: bigint;
  blockHash: Uint8Array;
  sequenceNumber: bigint;
  /** bytes32; version 0 is the batcher address left-padded (batcherHashFromAddress) */
  batcherHash: Uint8Array;
  /** bedrock format */
  l1FeeOverhead?: bigint;
  l1FeeScalar?: bigint;
  /** ecotone format on */
  blobBaseFee?: bigint;
  baseFeeScalar?: bigint;
  blobBaseFeeScalar?: bigint;
  /** isthmus format on */
  operatorFeeScalar?: bigint;
  operatorFeeConstant?: bigint;
  /** jovian format */
  daFootprintGasScalar?: bigint;
}

export const L1_INFO_SELECTORS: Readonly<Record<L1InfoFormat, Uint8Array>> = {
  bedrock: Uint8Array.of(0x01, 0x5d, 0x8e, 0xb9),
  ecotone: Uint8Array.of(0x44, 0x0a, 0x5e, 0x20),
  isthmus: Uint8Array.of(0x09, 0x89, 0x99, 0xbe),
  jovian: Uint8Array.of(0x3d, 0xb6, 0xbe, 0x2b),
};

export const L1_INFO_LENGTHS: Readonly<Record<L1InfoFormat, number>> = {
  bedrock: 4 + 32 * 8,
  ecotone: 164,
  isthmus: 176,
  jovian: 178,
};

export const L1_INFO_DEPOSITOR = Uint8Array.from(Buffer.from('deaddeaddeaddeaddeaddeaddeaddeaddead0001', 'hex'));
export const L1_BLOCK_PREDEPLOY = Uint8Array.from(Buffer.from('4200000000000000000000000000000000000015', 'hex'));
/** Jovian: the derivation substitutes this when the SystemConfig's DA footprint gas scalar is 0. */
export const DEFAULT_DA_FOOTPRINT_GAS_SCALAR = 400n;
const REGOLITH_SYSTEM_TX_GAS = 1_000_000n;
const BEDROCK_SYSTEM_TX_GAS = 150_000_000n;

function bad(message: string): never {
  throw new TernError('L1_INFO_INVALID', `L1 info calldata: ${message}`);
}

function put(out: Uint8Array, at: number, width: number, v: bigint, what: string): void {
  if (v < 0n || v >= 1n << BigInt(width * 8)) bad(`${what} ${v} does not fit in ${width} bytes`);
  let x = v;
  for (let i = at + width - 1; i >= at; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

function get(b: Uint8Array, at: number, width: number): bigint {
  let v = 0n;
  for (let i = at; i < at + width; i++) v = (v << 8n) | BigInt(b[i] as number);
  return v;
}

function put32(out: Uint8Array, at: number, b: Uint8Array, what: string): void {
  if (b.length !== 32) bad(`${what} must be 32 bytes, got ${b.length}`);
  out.set(b, at);
}

export function batcherHashFromAddress(address: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(address, 12);
  return out;
}

export function encodeL1InfoCalldata(info: L1BlockInfo, format: L1InfoFormat): Uint8Array {
  const out = new Uint8Array(L1_INFO_LENGTHS[format]);
  out.set(L1_INFO_SELECTORS[format], 0);
  if (format === 'bedrock') {
    // uint64 arguments are ABI words too: checked against uint64, written into 32 bytes.
    put(out, 4 + 24, 8, info.number, 'number');
    put(out, 36 + 24, 8, info.time, 'time');
    put(out, 68, 32, info.baseFee, 'baseFee');
    put32(out, 100, info.blockHash, 'blockHash');
    put(out, 132 + 24, 8, info.sequenceNumber, 'sequenceNumber');
    put32(out, 164, info.batcherHash, 'batcherHash');
    put(out, 196, 32, info.l1FeeOverhead ?? 0n, 'l1FeeOverhead');
    put(out, 228, 32, info.l1FeeScalar ?? 0n, 'l1FeeScalar');
    return out;
  }
  put(out, 4, 4, info.baseFeeScalar ?? 0n, 'baseFeeScalar');
  put(out, 8, 4, info.blobBaseFeeScalar ?? 0n, 'blobBaseFeeScalar');
  put(out, 12, 8, info.sequenceNumber, 'sequenceNumber');
  put(out, 20, 8, info.time, 'time');
  put(out, 28, 8, info.number, 'number');
  put(out, 36, 32, info.baseFee, 'baseFee');
  put(out, 68, 32, info.blobBaseFee ?? 0n, 'blobBaseFee');
  put32(out, 100, info.blockHash, 'blockHash');
  put32(out, 132, info.batcherHash, 'batcherHash');
  if (format === 'ecotone') return out;
  put(out, 164, 4, info.operatorFeeScalar ?? 0n, 'operatorFeeScalar');
  put(out, 168, 8, info.operatorFeeConstant ?? 0n, 'operatorFeeConstant');
  if (format === 'isthmus') return out;
  put(out, 176, 2, info.daFootprintGasScalar ?? 0n, 'daFootprintGasScalar');
  return out;
}

/** The format of calldata, from its selector. */
export function l1InfoFormatOf(data: Uint8Array): L1InfoFormat {
  if (data.length < 4) bad('missing selector');
  for (const f of Object.keys(L1_INFO_SELECTORS) as L1InfoFormat[]) {
    const s = L1_INFO_SELECTORS[f];
    if (s.every((b, i) => data[i] === b)) return f;
  }
  return bad(`unknown selector 0x${Buffer.from(data.subarray(0, 4)).toString('hex')}`);
}

export function decodeL1InfoCalldata(data: Uint8Array): L1BlockInfo & { format: L1InfoFormat } {
  const format = l1InfoFormatOf(data);
  const want = L1_INFO_LENGTHS[format];
  if (data.length !== want) bad(`${format} calldata is ${data.length} bytes, want ${want}`);
  if (format === 'bedrock') {
    // The high bytes of the uint64 words must be zero, as an ABI decoder requires.
    for (const word of [4, 36, 132]) if (get(data, word, 24) !== 0n) bad('uint64 argument overflows');
    return {
      format,
      number: get(data, 28, 8),
      time: get(data, 60, 8),
      baseFee: get(data, 68, 32),
      blockHash: data.slice(100, 132),
      sequenceNumber: get(data, 156, 8),
      batcherHash: data.slice(164, 196),
      l1FeeOverhead: get(data, 196, 32),
      l1FeeScalar: get(data, 228, 32),
    };
  }
  const info: L1BlockInfo & { format: L1InfoFormat } = {
    format,
    baseFeeScalar: get(data, 4, 4),
    blobBaseFeeScalar: get(data, 8, 4),
    sequenceNumber: get(data, 12, 8),
    time: get(data, 20, 8),
    number: get(data, 28, 8),
    baseFee: get(data, 36, 32),
    blobBaseFee: get(data, 68, 32),
    blockHash: data.slice(100, 132),
    batcherHash: data.slice(132, 164),
  };
  if (format === 'ecotone') return info;
  info.operatorFeeScalar = get(data, 164, 4);
  info.operatorFeeConstant = get(data, 168, 8);
  if (format === 'jovian') info.daFootprintGasScalar = get(data, 176, 2);
  return info;
}

/** Which fork features are active for the L2 block, and whether it is that fork's activation block. */
export interface L1InfoForkState {
  ecotone: boolean;
  isthmus: boolean;
  jovian: boolean;
  firstEcotoneBlock?: boolean;
  firstIsthmusBlock?: boolean;
  firstJovianBlock?: boolean;
}

/** The calldata format for an L2 block: the activation block of a fork keeps the previous format. */
export function l1InfoFormatFor(s: L1InfoForkState): L1InfoFormat {
  if (s.jovian && !s.firstJovianBlock) return 'jovian';
  if (s.isthmus && !s.firstIsthmusBlock) return 'isthmus';
  if (s.ecotone && !s.firstEcotoneBlock) return 'ecotone';
  return 'bedrock';
}

/**
 * The L1-info deposit transaction. Before Regolith it is a system transaction with 150M gas; from Regolith a
 * regular deposit with 1M gas.
 */
export function l1InfoDepositTx(info: L1BlockInfo, format: L1InfoFormat, regolith: boolean): DepositTx {
  return {
    sourceHash: l1InfoDepositSourceHash(info.blockHash, info.sequenceNumber),
    from: L1_INFO_DEPOSITOR,
    to: L1_BLOCK_PREDEPLOY,
    mint: 0n,
    value: 0n,
    gasLimit: regolith ? REGOLITH_SYSTEM_TX_GAS : BEDROCK_SYSTEM_TX_GAS,
    isSystemTx: !regolith,
    data: encodeL1InfoCalldata(info, format),
  };
}
