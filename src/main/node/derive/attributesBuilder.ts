// Payload attributes for the L2 block after `parent` in epoch `epoch` (derivation.md "Deriving Payload Attributes",
// the per-fork derivation.md and l1-attributes.md files): the L1-info deposit first (the encoding of the block's
// fork, the previous one in an activation block), user deposits and system-config updates only in the first block
// of an epoch, then each fork's upgrade transactions in its activation block. The system config is the parent's,
// read from L2 (the L1-info deposit and header of the parent), so building is stateless and restart-safe.
import { fakeExponential } from '../../primitives/block/fees.js';
import {
  batcherHashFromAddress,
  DEFAULT_DA_FOOTPRINT_GAS_SCALAR,
  type L1BlockInfo,
  l1InfoDepositTx,
  l1InfoFormatFor,
} from '../../primitives/op/l1Info.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import {
  isActivationBlock,
  isCanyon,
  isEcotone,
  isIsthmus,
  isJovian,
  isRegolith,
  type RollupConfig,
} from '../../primitives/rollup/config.js';
import { blobBaseFeeUpdateFraction, type L1ChainConfig } from '../../primitives/rollup/l1ChainConfig.js';
import { type DepositTx, encodeDepositTx } from '../../primitives/tx/deposit/deposit.js';
import type { DependencySet } from '../interop/dependencySet.js';
import type { Hex as L1Hex, L1BlockInfo as L1Info } from '../l1/interface.js';
import { userDeposits } from './depositLog.js';
import {
  cloneSystemConfig,
  eip1559ParamsFor,
  isValidEcotoneScalar,
  updateSystemConfigWithReceipts,
} from './systemConfig.js';
import {
  type BlockId,
  criticalError,
  fromHex,
  type L2BlockRef,
  type PayloadAttributes,
  resetError,
  type SystemConfig,
  toHex,
} from './types.js';
import { type BytecodeSource, bundledBytecode } from './upgrades/common.js';
import { ecotoneUpgradeTxs } from './upgrades/ecotone.js';
import { fjordUpgradeTxs } from './upgrades/fjord.js';
import { crossL2InboxActivationTxs, initializesCrossL2InboxAtInterop, interopUpgradeTxs } from './upgrades/interop.js';
import { isthmusUpgradeTxs } from './upgrades/isthmus.js';
import { jovianUpgradeTxs } from './upgrades/jovian.js';

export const SEQUENCER_FEE_VAULT = '0x4200000000000000000000000000000000000011';
/** EIP-4844's Cancun fraction, for an L1 block with blob gas when no L1 chain config is given. */
const CANCUN_BLOB_FEE_FRACTION = 3_338_477n;

/** L1 reads: the origin's header and, for the first block of an epoch, its receipts. */
export interface AttributesL1Provider {
  infoByHash(hash: L1Hex): Promise<L1Info>;
  fetchReceipts(hash: L1Hex): Promise<{ info: L1Info; receipts: Receipt[] }>;
}

/** L2 reads: the system config in force after an L2 block (from its L1-info deposit and header). */
export interface SystemConfigProvider {
  systemConfigByL2Hash(hash: string): Promise<SystemConfig>;
}

export interface AttributesBuilderOptions {
  /** L1 blob schedule for the blob base fee; without it the Cancun fraction is used. */
  l1ChainConfig?: L1ChainConfig | undefined;
  /** Where the upgrade transactions' contract bytecode comes from (default: the bundled copy). */
  bytecode?: BytecodeSource | undefined;
  /** The interop dependency set (--interop.dependency-set): decides the CrossL2Inbox initialization. */
  dependencySet?: Pick<DependencySet, 'chains'> | undefined;
}

function u32(b: Uint8Array, at: number): bigint {
  return BigInt(toHex(b.subarray(at, at + 4)));
}

export class AttributesBuilder {
  private readonly bytecode: BytecodeSource;
  private readonly initCrossL2Inbox: boolean;

  constructor(
    private readonly cfg: RollupConfig,
    private readonly l1: AttributesL1Provider,
    private readonly l2: SystemConfigProvider,
    private readonly opts: AttributesBuilderOptions = {},
  ) {
    this.bytecode = opts.bytecode ?? bundledBytecode();
    this.initCrossL2Inbox = initializesCrossL2InboxAtInterop(opts.dependencySet);
  }

  async prepare(parent: L2BlockRef, epoch: BlockId): Promise<PayloadAttributes> {
    const sc = cloneSystemConfig(await this.l2.systemConfigByL2Hash(parent.hash));
    let info: L1Info;
    let deposits: DepositTx[] = [];
    let seq: number;
    if (parent.l1origin.number !== epoch.number) {
      const r = await this.l1.fetchReceipts(epoch.hash as L1Hex);
      info = r.info;
      if (info.parentHash !== parent.l1origin.hash) {
        throw resetError(
          'ATTRIBUTES_EPOCH_MISMATCH',
          `L1 origin ${epoch.number} (${epoch.hash}) does not build on the parent's origin ${parent.l1origin.hash}`,
        );
      }
      deposits = userDeposits(r.receipts, this.cfg.depositContractAddress, info.hash);
      updateSystemConfigWithReceipts(sc, r.receipts, this.cfg, info.timestamp);
      seq = 0;
    } else {
      if (parent.l1origin.hash !== epoch.hash) {
        throw resetError(
          'ATTRIBUTES_EPOCH_MISMATCH',
          `epoch ${epoch.hash} is not the parent's origin ${parent.l1origin.hash}`,
        );
      }
      info = await this.l1.infoByHash(epoch.hash as L1Hex);
      seq = parent.sequenceNumber + 1;
    }

    const nextTime = parent.timestamp + this.cfg.blockTime;
    if (nextTime < info.timestamp) {
      throw resetError(
        'ATTRIBUTES_TIME_INVARIANT',
        `L2 time ${nextTime} would be before its L1 origin ${info.number} time ${info.timestamp}`,
      );
    }

    const upgrades: DepositTx[] = [];
    if (isActivationBlock(this.cfg, 'ecotone', nextTime)) upgrades.push(...ecotoneUpgradeTxs(this.bytecode));
    if (isActivationBlock(this.cfg, 'fjord', nextTime)) upgrades.push(...fjordUpgradeTxs(this.bytecode));
    if (isActivationBlock(this.cfg, 'isthmus', nextTime)) upgrades.push(...isthmusUpgradeTxs(this.bytecode));
    if (isActivationBlock(this.cfg, 'jovian', nextTime)) upgrades.push(...jovianUpgradeTxs(this.bytecode));
    if (isActivationBlock(this.cfg, 'interop', nextTime)) {
      upgrades.push(...interopUpgradeTxs(this.bytecode));
      if (this.initCrossL2Inbox) upgrades.push(...crossL2InboxActivationTxs(this.bytecode));
    }

    const l1InfoTx = this.l1InfoTx(info, sc, seq, nextTime);
    const header = info.header;
    const ecotone = isEcotone(this.cfg, nextTime);
    return {
      timestamp: nextTime,
      prevRandao: header.mixHash,
      suggestedFeeRecipient: SEQUENCER_FEE_VAULT,
      withdrawals: isCanyon(this.cfg, nextTime) ? [] : undefined,
      parentBeaconBlockRoot: ecotone ? (header.parentBeaconBlockRoot ?? new Uint8Array(32)) : undefined,
      transactions: [l1InfoTx, ...deposits, ...upgrades].map(encodeDepositTx),
      noTxPool: true,
      gasLimit: sc.gasLimit,
      eip1559Params: eip1559ParamsFor(this.cfg, sc, parent.timestamp, nextTime),
      minBaseFee: isJovian(this.cfg, nextTime) ? sc.minBaseFee : undefined,
    };
  }

  private blobBaseFee(info: L1Info): bigint {
    const excess = info.header.excessBlobGas;
    if (excess === undefined) return 1n;
    const l1 = this.opts.l1ChainConfig;
    const fraction =
      l1 === undefined ? CANCUN_BLOB_FEE_FRACTION : blobBaseFeeUpdateFraction(l1, this.cfg, info.timestamp);
    return fakeExponential(1n, excess, fraction ?? CANCUN_BLOB_FEE_FRACTION);
  }

  /** The L1-info deposit in the encoding of the block's fork (the previous one in an activation block). */
  private l1InfoTx(info: L1Info, sc: SystemConfig, seq: number, l2Time: number): DepositTx {
    const l1: L1BlockInfo = {
      number: BigInt(info.number),
      time: BigInt(info.timestamp),
      baseFee: info.header.baseFeePerGas ?? 0n,
      blockHash: fromHex(info.hash),
      sequenceNumber: BigInt(seq),
      batcherHash: batcherHashFromAddress(fromHex(sc.batcherAddr)),
      l1FeeOverhead: BigInt(toHex(sc.overhead)),
      l1FeeScalar: BigInt(toHex(sc.scalar)),
    };
    const format = l1InfoFormatFor({
      ecotone: isEcotone(this.cfg, l2Time),
      isthmus: isIsthmus(this.cfg, l2Time),
      jovian: isJovian(this.cfg, l2Time),
      firstEcotoneBlock: isActivationBlock(this.cfg, 'ecotone', l2Time),
      firstIsthmusBlock: isActivationBlock(this.cfg, 'isthmus', l2Time),
      firstJovianBlock: isActivationBlock(this.cfg, 'jovian', l2Time),
    });
    if (format !== 'bedrock') {
      if (!isValidEcotoneScalar(sc.scalar)) {
        throw criticalError(
          'SYSCFG_SCALAR_INVALID',
          `system config scalar ${toHex(sc.scalar)} is not a valid Ecotone scalar`,
        );
      }
      l1.blobBaseFee = this.blobBaseFee(info);
      // Scalar version 0 carries only the base fee scalar; version 1 both.
      l1.baseFeeScalar = u32(sc.scalar, 28);
      l1.blobBaseFeeScalar = sc.scalar[0] === 1 ? u32(sc.scalar, 24) : 0n;
    }
    if (format === 'isthmus' || format === 'jovian') {
      l1.operatorFeeScalar = u32(sc.operatorFeeParams, 20);
      l1.operatorFeeConstant = BigInt(toHex(sc.operatorFeeParams.subarray(24, 32)));
    }
    if (format === 'jovian') {
      l1.daFootprintGasScalar =
        sc.daFootprintGasScalar === 0 ? DEFAULT_DA_FOOTPRINT_GAS_SCALAR : BigInt(sc.daFootprintGasScalar);
    }
    return l1InfoDepositTx(l1, format, isRegolith(this.cfg, l2Time));
  }
}
