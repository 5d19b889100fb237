// OP-Stack EIP-1559: the Canyon denominator, Holocene's eip1559Params (payload attributes) and extraData
// (version 0: denominator, elasticity), Jovian's extraData version 1 with a minimum base fee, and the base fee
// of a child block as op-geth's CalcBaseFee computes it. From Holocene the parameters come from the parent's
// extraData, so the next base fee stays a function of the parent header alone.

import type { ChainConfig } from '../chainConfig.js';
import { TernError } from '../errors.js';

export const HOLOCENE_EXTRA_DATA_VERSION = 0;
export const JOVIAN_EXTRA_DATA_VERSION = 1;
export const INITIAL_BASE_FEE = 1_000_000_000n;
const U32 = 0xffff_ffffn;
const U64 = 0xffff_ffff_ffff_ffffn;

export interface Eip1559Params {
  denominator: bigint;
  elasticity: bigint;
}

export interface OpExtraData extends Eip1559Params {
  version: number;
  /** Jovian (version 1) only */
  minBaseFee?: bigint;
}

function bad(message: string): never {
  throw new TernError('EIP1559_PARAMS', message);
}

function putU32(out: Uint8Array, at: number, v: bigint, what: string): void {
  if (v < 0n || v > U32) bad(`${what} ${v} is out of uint32 range`);
  new DataView(out.buffer, out.byteOffset).setUint32(at, Number(v));
}

const u32 = (b: Uint8Array, at: number) => BigInt(new DataView(b.buffer, b.byteOffset).getUint32(at));

/** The 8-byte eip1559Params of PayloadAttributesV3 (Holocene on): denominator, elasticity as big-endian u32. */
export function encodeEip1559Params(p: Eip1559Params): Uint8Array {
  const out = new Uint8Array(8);
  putU32(out, 0, p.denominator, 'denominator');
  putU32(out, 4, p.elasticity, 'elasticity');
  return out;
}

export function decodeEip1559Params(b: Uint8Array): Eip1559Params {
  if (b.length !== 8) bad(`eip1559Params must be 8 bytes, got ${b.length}`);
  return { denominator: u32(b, 0), elasticity: u32(b, 4) };
}

/** Payload attributes may carry 0/0 (use the chain's defaults), never a zero denominator with a non-zero elasticity. */
export function validateEip1559Params(b: Uint8Array): void {
  const p = decodeEip1559Params(b);
  if (p.denominator === 0n && p.elasticity !== 0n) {
    bad('eip1559Params cannot have a 0 denominator unless elasticity is also 0');
  }
}

export function encodeHoloceneExtraData(p: Eip1559Params): Uint8Array {
  const out = new Uint8Array(9);
  out[0] = HOLOCENE_EXTRA_DATA_VERSION;
  out.set(encodeEip1559Params(p), 1);
  return out;
}

export function encodeJovianExtraData(p: Eip1559Params, minBaseFee: bigint): Uint8Array {
  if (minBaseFee < 0n || minBaseFee > U64) bad(`minBaseFee ${minBaseFee} is out of uint64 range`);
  const out = new Uint8Array(17);
  out[0] = JOVIAN_EXTRA_DATA_VERSION;
  out.set(encodeEip1559Params(p), 1);
  new DataView(out.buffer).setBigUint64(9, minBaseFee);
  return out;
}

/** Reads either extraData version (9 or 17 bytes); throws on anything else. Use validate* to check a header. */
export function decodeOpExtraData(extra: Uint8Array): OpExtraData {
  if (extra.length === 9) return { version: extra[0] as number, ...decodeEip1559Params(extra.subarray(1, 9)) };
  if (extra.length === 17) {
    const minBaseFee = new DataView(extra.buffer, extra.byteOffset).getBigUint64(9);
    return { version: extra[0] as number, ...decodeEip1559Params(extra.subarray(1, 9)), minBaseFee };
  }
  return bad(`extraData must be 9 (Holocene) or 17 (Jovian) bytes, got ${extra.length}`);
}

function checkHeaderParams(extra: Uint8Array, name: string): void {
  const p = decodeEip1559Params(extra.subarray(1, 9));
  if (p.denominator === 0n || p.elasticity === 0n)
    bad(`${name} extraData: denominator and elasticity must be non-zero`);
}

export function validateHoloceneExtraData(extra: Uint8Array): void {
  if (extra.length !== 9) bad(`holocene extraData should be 9 bytes, got ${extra.length}`);
  if (extra[0] !== HOLOCENE_EXTRA_DATA_VERSION) bad(`holocene extraData version byte should be 0, got ${extra[0]}`);
  checkHeaderParams(extra, 'holocene');
}

export function validateJovianExtraData(extra: Uint8Array): void {
  if (extra.length !== 17) bad(`jovian extraData should be 17 bytes, got ${extra.length}`);
  if (extra[0] !== JOVIAN_EXTRA_DATA_VERSION) bad(`jovian extraData version byte should be 1, got ${extra[0]}`);
  checkHeaderParams(extra, 'jovian');
}

/** The timestamp forks that shape OP base fees, plus the chain's pre-Holocene constants. */
export interface OpBaseFeeConfig {
  elasticity: bigint;
  denominator: bigint;
  denominatorCanyon?: bigint | undefined;
  canyonTime?: bigint | undefined;
  holoceneTime?: bigint | undefined;
  jovianTime?: bigint | undefined;
  /** Blocks before London have no base fee; the first London block gets INITIAL_BASE_FEE. */
  londonBlock?: bigint | undefined;
}

export function opBaseFeeConfig(c: ChainConfig): OpBaseFeeConfig {
  if (!c.optimism) throw new TernError('CHAIN_CONFIG', 'chain config has no optimism section');
  return {
    elasticity: c.optimism.eip1559Elasticity,
    denominator: c.optimism.eip1559Denominator,
    denominatorCanyon: c.optimism.eip1559DenominatorCanyon,
    canyonTime: c.times.canyonTime,
    holoceneTime: c.times.holoceneTime,
    jovianTime: c.times.jovianTime,
    londonBlock: c.blocks.londonBlock,
  };
}

const active = (fork: bigint | undefined, time: bigint) => fork !== undefined && time >= fork;

/** The pre-Holocene constants in force at `time` (Canyon changed the denominator). */
export function defaultEip1559Params(c: OpBaseFeeConfig, time: bigint): Eip1559Params {
  const canyon = active(c.canyonTime, time) && c.denominatorCanyon !== undefined;
  return { denominator: canyon ? (c.denominatorCanyon as bigint) : c.denominator, elasticity: c.elasticity };
}

/** Validates a header's extraData for its own timestamp (op-geth ValidateOptimismExtraData). */
export function validateOpExtraData(c: OpBaseFeeConfig, time: bigint, extra: Uint8Array): void {
  if (active(c.jovianTime, time)) validateJovianExtraData(extra);
  else if (active(c.holoceneTime, time)) validateHoloceneExtraData(extra);
  else if (extra.length > 0) bad('extraData must be empty before Holocene');
}

/**
 * The extraData a block built from payload attributes carries: Holocene writes eip1559Params (0/0 replaced by
 * the chain's defaults at the block's time), Jovian adds minBaseFee; empty before Holocene.
 */
export function extraDataForPayload(
  c: OpBaseFeeConfig,
  time: bigint,
  eip1559Params: Uint8Array | undefined,
  minBaseFee: bigint | undefined,
): Uint8Array {
  if (!active(c.holoceneTime, time)) return new Uint8Array(0);
  if (eip1559Params === undefined) bad('eip1559Params are required from Holocene on');
  validateEip1559Params(eip1559Params);
  let p = decodeEip1559Params(eip1559Params);
  if (p.denominator === 0n) p = defaultEip1559Params(c, time);
  if (!active(c.jovianTime, time)) return encodeHoloceneExtraData(p);
  if (minBaseFee === undefined) bad('minBaseFee is required from Jovian on');
  return encodeJovianExtraData(p, minBaseFee);
}

export interface ParentFeeFields {
  number?: bigint | undefined;
  timestamp: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint | undefined;
  extraData: Uint8Array;
  /** Jovian: the parent's DA footprint */
  blobGasUsed?: bigint | undefined;
}

/** The base fee of the child at `timestamp` of `parent` (op-geth CalcBaseFee with the OP rules). */
export function nextBaseFeeOp(parent: ParentFeeFields, c: OpBaseFeeConfig, timestamp: bigint): bigint {
  if (c.londonBlock !== undefined && parent.number !== undefined && parent.number < c.londonBlock) {
    return INITIAL_BASE_FEE;
  }
  let { denominator, elasticity } = defaultEip1559Params(c, timestamp);
  let minBaseFee: bigint | undefined;
  if (active(c.holoceneTime, parent.timestamp)) {
    const extra = decodeOpExtraData(parent.extraData);
    ({ denominator, elasticity } = extra);
    // Jovian parents carry a minimum; a 9-byte extraData (the Jovian activation block's parent) has none.
    if (active(c.jovianTime, parent.timestamp)) minBaseFee = extra.minBaseFee;
  }
  if (denominator === 0n || elasticity === 0n) bad('invalid eip-1559 params in parent extraData');
  let gasMetered = parent.gasUsed;
  if (active(c.jovianTime, parent.timestamp)) {
    if (parent.blobGasUsed === undefined) bad('Jovian parent header has no blobGasUsed (DA footprint)');
    if (parent.blobGasUsed > gasMetered) gasMetered = parent.blobGasUsed;
  }
  const parentBaseFee = parent.baseFeePerGas ?? 0n;
  const target = parent.gasLimit / elasticity;
  let baseFee: bigint;
  if (gasMetered === target) baseFee = parentBaseFee;
  else if (gasMetered > target) {
    const delta = (parentBaseFee * (gasMetered - target)) / target / denominator;
    baseFee = parentBaseFee + (delta < 1n ? 1n : delta);
  } else {
    const delta = (parentBaseFee * (target - gasMetered)) / target / denominator;
    baseFee = parentBaseFee - delta;
    if (baseFee < 0n) baseFee = 0n;
  }
  if (minBaseFee !== undefined && baseFee < minBaseFee) baseFee = minBaseFee;
  return baseFee;
}
