// Transaction checks before admission, in geth's order (core/txpool/validation.go): ValidateTransaction needs only
// the head header and config; validateWithState reads the sender's nonce and balance. Failures throw TxRejected
// with geth's message text.
import type { Header } from '../../primitives/block/header.js';
import { type ChainConfig, isBlockForkActive, isTimeForkActive } from '../../primitives/chainConfig.js';
import type { DecodedTx } from '../../primitives/tx/decode.js';
import type { ForkRules } from '../evm/env.js';
import { floorDataGas, intrinsicGas, MAX_INITCODE_SIZE, MAX_TX_GAS } from '../evm/intrinsic.js';
import { PoolErrors, reject } from './errors.js';

const MAX_UINT256 = (1n << 256n) - 1n;
/** geth's txSlotSize / txMaxSize: sizes are counted in 32 KiB slots, at most four per transaction. */
export const TX_SLOT_SIZE = 32 * 1024;
export const TX_MAX_SIZE = 4 * TX_SLOT_SIZE;
/** The blob pool's limit on the transaction without its sidecar. */
export const BLOB_TX_MAX_SIZE = 1024 * 1024;
/** EIP-7594's per-transaction blob limit (Osaka). */
const OSAKA_MAX_BLOBS_PER_TX = 6;

export const numSlots = (size: number): number => Math.ceil(size / TX_SLOT_SIZE);

/** The protocol rules at a header (geth's Rules(head.Number, merged, head.Time)). */
export function rulesAt(config: ChainConfig, header: Header): ForkRules {
  const b = (f: Parameters<typeof isBlockForkActive>[1]) => isBlockForkActive(config, f, header.number);
  const t = (f: Parameters<typeof isTimeForkActive>[1]) => isTimeForkActive(config, f, header.timestamp);
  return {
    homestead: b('homesteadBlock'),
    tangerineWhistle: b('eip150Block'),
    spuriousDragon: b('eip158Block'),
    byzantium: b('byzantiumBlock'),
    istanbul: b('istanbulBlock'),
    berlin: b('berlinBlock'),
    london: b('londonBlock'),
    paris: config.terminalTotalDifficulty !== undefined,
    shanghai: t('shanghaiTime'),
    cancun: t('cancunTime'),
    prague: t('pragueTime'),
    osaka: t('osakaTime'),
  };
}

export const feeCapOf = (tx: DecodedTx): bigint => tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
export const tipCapOf = (tx: DecodedTx): bigint => tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n;
export const blobGasOf = (tx: DecodedTx): bigint => BigInt(tx.blobVersionedHashes?.length ?? 0) * 131_072n;

/** gas · feeCap + value (+ blob gas · blob fee cap): geth's tx.Cost(). */
export function txCost(tx: DecodedTx): bigint {
  let cost = tx.gasLimit * feeCapOf(tx) + tx.value;
  if (tx.type === 3) cost += blobGasOf(tx) * (tx.maxFeePerBlobGas ?? 0n);
  return cost;
}

export interface BasicValidation {
  config: ChainConfig;
  head: Header;
  /** Size limit of the consensus encoding. */
  maxSize: number;
  /** Lowest tip accepted (0 for exempt locals). */
  minTip: bigint;
  /** --txpool.maxtxgas, 0 for none. */
  maxTxGas: bigint;
  /** Most blobs per block at the head (bounds a transaction's blob count). */
  maxBlobs: number;
}

/** geth's ValidateTransaction, minus the signature (checked by the caller, which recovers the sender once). */
export function validateBasics(tx: DecodedTx, size: number, o: BasicValidation): void {
  if (tx.type === 3) {
    const count = tx.blobVersionedHashes?.length ?? 0;
    if (count > o.maxBlobs) reject(`blob limit exceeded: blob count ${count}, limit ${o.maxBlobs}`);
  }
  if (size > o.maxSize) reject(`${PoolErrors.oversized}: transaction size ${size}, limit ${o.maxSize}`);
  const rules = rulesAt(o.config, o.head);
  const typeRule: Record<number, [boolean, string]> = {
    1: [rules.berlin, 'Berlin'],
    2: [rules.london, 'London'],
    3: [rules.cancun, 'Cancun'],
    4: [rules.prague, 'Prague'],
  };
  const need = typeRule[tx.type];
  if (need && !need[0])
    reject(`${PoolErrors.txTypeNotSupported}: type ${tx.type} rejected, pool not yet in ${need[1]}`);
  if (tx.type > 4) reject(`${PoolErrors.txTypeNotSupported}: tx type ${tx.type} not supported by this pool`);
  if (rules.shanghai && tx.to === undefined && tx.data.length > MAX_INITCODE_SIZE) {
    reject(`${PoolErrors.maxInitCodeSize}: code size ${tx.data.length}, limit ${MAX_INITCODE_SIZE}`);
  }
  if (rules.osaka && tx.gasLimit > MAX_TX_GAS) reject('transaction gas limit too high');
  if (o.head.gasLimit < tx.gasLimit) reject(PoolErrors.gasLimit);
  if (o.maxTxGas > 0n && tx.gasLimit > o.maxTxGas) {
    reject(`${PoolErrors.maxTxGas}: gas ${tx.gasLimit}, limit ${o.maxTxGas}`);
  }
  const feeCap = feeCapOf(tx);
  const tip = tipCapOf(tx);
  if (feeCap > MAX_UINT256) reject(PoolErrors.feeCapVeryHigh);
  if (tip > MAX_UINT256) reject(PoolErrors.tipVeryHigh);
  if (feeCap < tip) reject(PoolErrors.tipAboveFeeCap);
  const intr = intrinsicGas(
    {
      data: tx.data,
      isCreate: tx.to === undefined,
      accessList: tx.accessList,
      authorizationCount: tx.authorizationList?.length ?? 0,
    },
    rules,
  );
  if (tx.gasLimit < intr) reject(`${PoolErrors.intrinsicGas}: gas ${tx.gasLimit}, minimum needed ${intr}`);
  if (rules.prague) {
    const floor = floorDataGas(tx.data);
    if (tx.gasLimit < floor) reject(`${PoolErrors.floorDataGas}: gas ${tx.gasLimit}, minimum needed ${floor}`);
  }
  if (tip < o.minTip) reject(`${PoolErrors.gasPriceTooLow}: gas tip cap ${tip}, minimum needed ${o.minTip}`);
  if (tx.type === 3 && (tx.blobVersionedHashes?.length ?? 0) === 0) reject('blobless blob transaction');
  if (tx.type === 3 && rules.osaka && (tx.blobVersionedHashes?.length ?? 0) > OSAKA_MAX_BLOBS_PER_TX) {
    reject(
      `too many blobs in transaction: have ${tx.blobVersionedHashes?.length}, permitted ${OSAKA_MAX_BLOBS_PER_TX}`,
    );
  }
  if (tx.type === 4 && (tx.authorizationList?.length ?? 0) === 0) {
    reject('set code tx must have at least one authorization tuple');
  }
}

/** The sender's chain state and the pool's own view of it (geth's ValidationOptionsWithState). */
export interface StateValidation {
  nonce: bigint;
  balance: bigint;
  /** Cost of the sender's pooled transactions. */
  spent: bigint;
  /** Cost of the pooled transaction this one would replace. */
  replacedCost: bigint | undefined;
  /** Pooled transactions of the sender and whether another fits (checked only for a new nonce). */
  used: number;
  hasRoom: boolean;
  /** Blob pool: the first nonce after the sender's pooled run (no gaps allowed there). */
  firstGap?: bigint | undefined;
  /** Extra cost the chain charges (op-geth: the L1 data fee), added to the transaction's. */
  extraCost?: bigint | undefined;
}

export function validateWithState(tx: DecodedTx, s: StateValidation): void {
  if (s.nonce > tx.nonce) reject(`${PoolErrors.nonceTooLow}: next nonce ${s.nonce}, tx nonce ${tx.nonce}`);
  if (s.firstGap !== undefined && s.firstGap < tx.nonce) {
    reject(`${PoolErrors.nonceTooHigh}: tx nonce ${tx.nonce}, gapped nonce ${s.firstGap}`);
  }
  const cost = txCost(tx) + (s.extraCost ?? 0n);
  if (s.balance < cost) {
    reject(`${PoolErrors.insufficientFunds}: balance ${s.balance}, tx cost ${cost}, overshot ${cost - s.balance}`);
  }
  if (s.replacedCost !== undefined) {
    const bump = cost - s.replacedCost;
    const need = s.spent + bump;
    if (s.balance < need) {
      reject(
        `${PoolErrors.insufficientFunds}: balance ${s.balance}, queued cost ${s.spent}, tx bumped ${bump}, overshot ${need - s.balance}`,
      );
    }
    return;
  }
  const need = s.spent + cost;
  if (s.balance < need) {
    reject(
      `${PoolErrors.insufficientFunds}: balance ${s.balance}, queued cost ${s.spent}, tx cost ${cost}, overshot ${need - s.balance}`,
    );
  }
  if (!s.hasRoom) reject(`${PoolErrors.accountLimit}: pooled ${s.used} txs`);
}
