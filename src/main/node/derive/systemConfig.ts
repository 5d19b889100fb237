// System-config updates from the L1 SystemConfig contract's ConfigUpdate logs (system-config.md, the Holocene,
// Isthmus and Jovian system-config.md files). Updates apply at the L1 block whose receipts carry them. A log
// from the contract that does not decode is a critical error, as in op-node and kona: the contract cannot emit
// one, so seeing it means a wrong config or a broken L1 source, and guessing would fork the chain.
import { keccak256 } from '../../native/keccak.js';
import type { Log, Receipt } from '../../primitives/receipt/receipt.js';
import { type GenesisSystemConfig, isForkActive, type RollupConfig } from '../../primitives/rollup/config.js';
import { criticalError, fromHex, type Hex, type SystemConfig, sameHex, toHex } from './types.js';

export const CONFIG_UPDATE_TOPIC: Hex = toHex(keccak256(new TextEncoder().encode('ConfigUpdate(uint256,uint8,bytes)')));

export const UpdateType = {
  Batcher: 0,
  FeeScalars: 1,
  GasLimit: 2,
  UnsafeBlockSigner: 3,
  Eip1559Params: 4,
  OperatorFeeParams: 5,
  MinBaseFee: 6,
  DaFootprintGasScalar: 7,
} as const;

/** The genesis system config of rollup.json, in derivation's byte form. */
export function systemConfigFromGenesis(g: GenesisSystemConfig): SystemConfig {
  return {
    batcherAddr: g.batcherAddr.toLowerCase(),
    overhead: fromHex(g.overhead),
    scalar: fromHex(g.scalar),
    gasLimit: g.gasLimit,
    eip1559Params: g.eip1559Params === undefined ? new Uint8Array(8) : fromHex(g.eip1559Params),
    operatorFeeParams: g.operatorFeeParams === undefined ? new Uint8Array(32) : fromHex(g.operatorFeeParams),
    minBaseFee: g.minBaseFee ?? 0n,
    daFootprintGasScalar: g.daFootprintGasScalar ?? 0,
  };
}

export function cloneSystemConfig(c: SystemConfig): SystemConfig {
  return {
    ...c,
    overhead: c.overhead.slice(),
    scalar: c.scalar.slice(),
    eip1559Params: c.eip1559Params.slice(),
    operatorFeeParams: c.operatorFeeParams.slice(),
  };
}

function bad(message: string): never {
  throw criticalError('SYSCFG_UPDATE_INVALID', `malformed SystemConfig ConfigUpdate log: ${message}`);
}

function isZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

/** A 32-byte ABI word that must hold an unsigned integer of `bits` bits. */
function word(data: Uint8Array, index: number, bits: number, what: string): bigint {
  const w = data.subarray(32 * index, 32 * index + 32);
  if (w.length !== 32) bad(`${what}: data too short`);
  if (!isZero(w, 0, 32 - bits / 8)) bad(`${what}: value exceeds uint${bits}`);
  return BigInt(toHex(w));
}

/** The `bytes data` argument: pointer 32, then a length, then exactly `len` bytes of payload. */
function payload(data: Uint8Array, len: number): Uint8Array {
  if (data.length !== 64 + len) bad(`data is ${data.length} bytes, want ${64 + len}`);
  if (word(data, 0, 64, 'pointer') !== 32n) bad('invalid pointer field');
  if (word(data, 1, 64, 'length') !== BigInt(len)) bad('invalid length field');
  return data.subarray(64);
}

/** Ecotone's versioned scalar: version 0 keeps only the low uint32, version 1 a uint32 pair; anything else is
 *  rejected and the old scalar retained (eth.CheckEcotoneL1SystemConfigScalar). */
export function isValidEcotoneScalar(scalar: Uint8Array): boolean {
  if (scalar.length !== 32) return false;
  if (scalar[0] === 0) return isZero(scalar, 1, 28);
  if (scalar[0] === 1) return isZero(scalar, 1, 24);
  return false;
}

/** Applies one ConfigUpdate log to `sc` in place. `l1Time` selects the scalar encoding (Ecotone by L1 time). */
export function applyConfigUpdateLog(sc: SystemConfig, log: Log, cfg: RollupConfig, l1Time: number): void {
  if (log.topics.length !== 3) bad(`expected 3 topics, got ${log.topics.length}`);
  if (toHex(log.topics[0] as Uint8Array) !== CONFIG_UPDATE_TOPIC) bad('not a ConfigUpdate event');
  const version = log.topics[1] as Uint8Array;
  if (version.length !== 32 || !isZero(version, 0, 32)) bad(`unsupported version ${toHex(version)}`);
  const typeTopic = log.topics[2] as Uint8Array;
  if (typeTopic.length !== 32 || !isZero(typeTopic, 0, 31)) bad(`unknown update type ${toHex(typeTopic)}`);
  const type = typeTopic[31] as number;
  const data = log.data;
  switch (type) {
    case UpdateType.Batcher: {
      const p = payload(data, 32);
      if (!isZero(p, 0, 12)) bad('batcher: not an address');
      sc.batcherAddr = toHex(p.subarray(12, 32));
      return;
    }
    case UpdateType.FeeScalars: {
      const p = payload(data, 64);
      const overhead = p.slice(0, 32);
      const scalar = p.slice(32, 64);
      if (isForkActive(cfg, 'ecotone', l1Time)) {
        if (!isValidEcotoneScalar(scalar)) return;
        sc.scalar = scalar;
        sc.overhead = new Uint8Array(32);
      } else {
        sc.overhead = overhead;
        sc.scalar = scalar;
      }
      return;
    }
    case UpdateType.GasLimit:
      payload(data, 32);
      sc.gasLimit = word(data, 2, 64, 'gas limit');
      return;
    case UpdateType.UnsafeBlockSigner:
      // Runtime config for gossip, not derivation.
      return;
    case UpdateType.Eip1559Params: {
      const p = payload(data, 32);
      // abi.encode(uint64(denominator) << 32 | elasticity): the low 8 bytes.
      if (!isZero(p, 0, 24)) bad('eip-1559 params exceed uint64');
      sc.eip1559Params = p.slice(24, 32);
      return;
    }
    case UpdateType.OperatorFeeParams:
      sc.operatorFeeParams = payload(data, 32).slice();
      return;
    case UpdateType.MinBaseFee:
      payload(data, 32);
      sc.minBaseFee = word(data, 2, 64, 'min base fee');
      return;
    case UpdateType.DaFootprintGasScalar:
      payload(data, 32);
      sc.daFootprintGasScalar = Number(word(data, 2, 16, 'DA footprint gas scalar'));
      return;
    default:
      bad(`unknown update type ${type}`);
  }
}

/** Applies every ConfigUpdate log of the block's successful receipts, in order; returns whether any applied. */
export function updateSystemConfigWithReceipts(
  sc: SystemConfig,
  receipts: readonly Receipt[],
  cfg: RollupConfig,
  l1Time: number,
): boolean {
  let changed = false;
  for (const r of receipts) {
    if (r.status !== 1) continue;
    for (const log of r.logs) {
      if (!sameHex(toHex(log.address), cfg.l1SystemConfigAddress)) continue;
      if (log.topics.length === 0 || toHex(log.topics[0] as Uint8Array) !== CONFIG_UPDATE_TOPIC) continue;
      applyConfigUpdateLog(sc, log, cfg, l1Time);
      changed = true;
    }
  }
  return changed;
}

/** Holocene eip1559Params attribute: absent before, zeros in the activation block, the config's after. */
export function eip1559ParamsFor(
  cfg: RollupConfig,
  sc: SystemConfig,
  parentTime: number,
  nextTime: number,
): Uint8Array | undefined {
  if (!isForkActive(cfg, 'holocene', nextTime)) return undefined;
  if (!isForkActive(cfg, 'holocene', parentTime)) return new Uint8Array(8);
  return sc.eip1559Params.slice();
}
