// What an L2 block says about the rollup: its reference (L1 origin and sequence number from the L1-info deposit, the
// block's first transaction) and the system config in force after it (batcher, fee scalars and operator fee from
// the deposit; gas limit, EIP-1559 parameters and minimum base fee from the header). The genesis block carries
// neither and takes both from the rollup config. Pure functions, shared by every Engine implementation.
import { TernError } from '../../common/errors.js';
import { decodeOpExtraData, encodeEip1559Params } from '../../primitives/op/eip1559.js';
import { decodeL1InfoCalldata, type L1BlockInfo, type L1InfoFormat } from '../../primitives/op/l1Info.js';
import type { L2BlockRef } from '../../primitives/rollup/blockRef.js';
import { isHolocene, isIsthmus, isJovian, type RollupConfig } from '../../primitives/rollup/config.js';
import { DEPOSIT_TX_TYPE, decodeDepositTx } from '../../primitives/tx/deposit/deposit.js';
import { systemConfigFromGenesis } from '../derive/systemConfig.js';
import { type SystemConfig, toHex } from '../derive/types.js';

/** The header fields these functions read. */
export interface L2HeaderFields {
  hash: string;
  number: number;
  parentHash: string;
  timestamp: number;
  gasLimit: bigint;
  extraData: Uint8Array;
}

function badBlock(h: L2HeaderFields, message: string, cause?: unknown): TernError {
  return new TernError('ENGINE_BAD_BLOCK', `L2 block ${h.number} (${h.hash}): ${message}`, {
    severity: 'reset',
    ...(cause === undefined ? {} : { cause }),
  });
}

function checkGenesis(cfg: RollupConfig, h: L2HeaderFields): boolean {
  if (h.number !== cfg.genesis.l2.number) return false;
  if (h.hash.toLowerCase() !== cfg.genesis.l2.hash) {
    throw new TernError(
      'ENGINE_WRONG_CHAIN',
      `the engine's L2 block ${h.number} is ${h.hash}, the rollup config's genesis is ${cfg.genesis.l2.hash}: ` +
        'the execution engine was initialised with another genesis',
      { severity: 'critical' },
    );
  }
  return true;
}

/** Decodes the L1-info deposit, the block's first transaction. */
export function l1InfoOfBlock(
  h: L2HeaderFields,
  firstTx: Uint8Array | undefined,
): L1BlockInfo & { format: L1InfoFormat } {
  if (firstTx === undefined) throw badBlock(h, 'missing the L1-info deposit transaction');
  if (firstTx[0] !== DEPOSIT_TX_TYPE) throw badBlock(h, `first transaction has type ${firstTx[0]}, not a deposit`);
  try {
    return decodeL1InfoCalldata(decodeDepositTx(firstTx).data);
  } catch (err) {
    throw badBlock(h, `cannot read its L1-info deposit: ${err instanceof Error ? err.message : String(err)}`, err);
  }
}

export function blockRefFromBlock(cfg: RollupConfig, h: L2HeaderFields, firstTx: Uint8Array | undefined): L2BlockRef {
  const base = {
    hash: h.hash.toLowerCase(),
    number: h.number,
    parentHash: h.parentHash.toLowerCase(),
    timestamp: h.timestamp,
  };
  if (checkGenesis(cfg, h)) return { ...base, l1origin: { ...cfg.genesis.l1 }, sequenceNumber: 0 };
  const info = l1InfoOfBlock(h, firstTx);
  return {
    ...base,
    l1origin: { hash: toHex(info.blockHash), number: Number(info.number) },
    sequenceNumber: Number(info.sequenceNumber),
  };
}

function u32(out: Uint8Array, at: number, v: bigint | undefined): void {
  new DataView(out.buffer, out.byteOffset).setUint32(at, Number(v ?? 0n));
}

function word(v: bigint | undefined): Uint8Array {
  const out = new Uint8Array(32);
  let x = v ?? 0n;
  for (let i = 31; i >= 0 && x > 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

/** op-node's SystemConfigFromHeaderAndDeposit. */
export function systemConfigFromBlock(
  cfg: RollupConfig,
  h: L2HeaderFields,
  firstTx: Uint8Array | undefined,
): SystemConfig {
  if (checkGenesis(cfg, h)) return systemConfigFromGenesis(cfg.genesis.systemConfig);
  const info = l1InfoOfBlock(h, firstTx);
  let overhead = word(info.l1FeeOverhead);
  let scalar = word(info.l1FeeScalar);
  if (info.format !== 'bedrock') {
    // Ecotone encodes the scalars separately; the versioned (v1) scalar has the same effect as a v0 one.
    overhead = new Uint8Array(32);
    scalar = new Uint8Array(32);
    scalar[0] = 1;
    u32(scalar, 24, info.blobBaseFeeScalar);
    u32(scalar, 28, info.baseFeeScalar);
  }
  let eip1559Params: Uint8Array = new Uint8Array(8);
  let minBaseFee = 0n;
  if (isHolocene(cfg, h.timestamp)) {
    let extra: ReturnType<typeof decodeOpExtraData>;
    try {
      extra = decodeOpExtraData(h.extraData);
    } catch (err) {
      throw badBlock(h, `invalid extraData: ${err instanceof Error ? err.message : String(err)}`, err);
    }
    eip1559Params = encodeEip1559Params(extra);
    if (isJovian(cfg, h.timestamp)) minBaseFee = extra.minBaseFee ?? 0n;
  }
  const operatorFeeParams = new Uint8Array(32);
  if (isIsthmus(cfg, h.timestamp)) {
    u32(operatorFeeParams, 20, info.operatorFeeScalar);
    new DataView(operatorFeeParams.buffer).setBigUint64(24, info.operatorFeeConstant ?? 0n);
  }
  return {
    batcherAddr: toHex(info.batcherHash.subarray(12, 32)),
    overhead,
    scalar,
    gasLimit: h.gasLimit,
    eip1559Params,
    operatorFeeParams,
    minBaseFee,
    daFootprintGasScalar: isJovian(cfg, h.timestamp) ? Number(info.daFootprintGasScalar ?? 0n) : 0,
  };
}
