// Block building (engine_forkchoiceUpdated with payload attributes, later the --dev sealer): a block on a stored
// parent from the attributes — forced `transactions` first and in order (OP deposits and sequenced transactions),
// then, unless `noTxPool`, executable pool transactions while gas lasts — with receipts, state root and header.
//
// Execution goes through processBlock, the same code import runs, so a built block always imports. Pool
// transactions are packed by their gas limit (not by the gas they end up using) and a candidate that turns out
// invalid is dropped and the block re-executed; this trades some packing density for having one state transition.
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { type Block, transactionsRoot, type Withdrawal, withdrawalsRoot } from '../../primitives/block/block.js';
import {
  type BaseFeeParams,
  blobBaseFee,
  ETHEREUM_BASE_FEE_PARAMS,
  nextBaseFee,
  nextExcessBlobGas,
} from '../../primitives/block/fees.js';
import { EMPTY_REQUESTS_HASH, EMPTY_UNCLE_HASH, type Header, headerHash } from '../../primitives/block/header.js';
import {
  blobParamsAt,
  type ChainConfig,
  isBlockForkActive,
  isOptimism,
  isTimeForkActive,
} from '../../primitives/chainConfig.js';
import { encodeReceiptForRoot } from '../../primitives/receipt/receipt.js';
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from '../../primitives/trie/root.js';
import { decodeTransaction } from '../../primitives/tx/decode.js';
import { createKzg } from '../evm/kzg.js';
import { Executor } from '../evm/transition.js';
import { TrieStateReader } from '../rpc/stateAt.js';
import type { SenderRecovery } from '../senders/interface.js';
import { FlatState } from '../state/flatState.js';
import type { StateReader } from '../state/interface.js';
import { StateCommitment } from '../state/trie/commitment.js';
import type { TxPool } from '../txpool/interface.js';
import type { ChainStore } from './chainStore.js';
import { type ExecutedBlock, messagePasserRoot } from './importer.js';
import { type BlockOutcome, processBlock } from './processBlock.js';
import { DbStateReader } from './stateStore.js';

const TX_TYPE_BLOB = 3;
const TX_TYPE_DEPOSIT = 0x7e;
const MIN_TX_GAS = 21_000n;
/** Re-executions allowed for pool candidates that fail; after that the block keeps only the forced transactions. */
const MAX_RETRIES = 8;

export interface BuildAttributes {
  timestamp: bigint;
  prevRandao: Uint8Array;
  /** 20 bytes: the block's coinbase. */
  feeRecipient: Uint8Array;
  /** Shanghai on; undefined before. */
  withdrawals?: readonly Withdrawal[] | undefined;
  /** Cancun on. */
  parentBeaconBlockRoot?: Uint8Array | undefined;
  /** OP: transactions the block starts with, in this order. */
  transactions?: readonly Uint8Array[] | undefined;
  /** OP: no transactions beyond `transactions`. */
  noTxPool?: boolean | undefined;
  /** OP: the block's gas limit (L1: the parent's is kept). */
  gasLimit?: bigint | undefined;
  /** OP Holocene: 8 bytes, denominator ‖ elasticity (uint32 each); zero means the chain's defaults. */
  eip1559Params?: Uint8Array | undefined;
  /** OP Jovian: the minimum base fee. */
  minBaseFee?: bigint | undefined;
}

export interface BuiltBlock extends ExecutedBlock {
  /** Priority fees the fee recipient earns (engine_getPayload's blockValue). */
  blockValue: bigint;
}

export interface BuilderDeps {
  logger: Logger;
  /** Absent: blocks hold the forced transactions only. */
  pool?: TxPool | undefined;
}

const u32 = (b: Uint8Array, o: number) => BigInt(new DataView(b.buffer, b.byteOffset + o, 4).getUint32(0));
const u64 = (b: Uint8Array, o: number) => new DataView(b.buffer, b.byteOffset + o, 8).getBigUint64(0);

/** OP Holocene/Jovian extraData: version ‖ denominator ‖ elasticity (‖ minBaseFee from Jovian on). */
export function opExtraData(
  config: ChainConfig,
  timestamp: bigint,
  eip1559Params: Uint8Array | undefined,
  minBaseFee: bigint | undefined,
): Uint8Array {
  if (!isTimeForkActive(config, 'holoceneTime', timestamp)) return new Uint8Array(0);
  const op = config.optimism;
  let denominator = eip1559Params ? u32(eip1559Params, 0) : 0n;
  let elasticity = eip1559Params ? u32(eip1559Params, 4) : 0n;
  if (denominator === 0n && elasticity === 0n && op) {
    denominator = op.eip1559DenominatorCanyon ?? op.eip1559Denominator;
    elasticity = op.eip1559Elasticity;
  }
  const jovian = isTimeForkActive(config, 'jovianTime', timestamp);
  const out = new Uint8Array(jovian ? 17 : 9);
  const view = new DataView(out.buffer);
  out[0] = jovian ? 1 : 0;
  view.setUint32(1, Number(denominator));
  view.setUint32(5, Number(elasticity));
  if (jovian) view.setBigUint64(9, minBaseFee ?? 0n);
  return out;
}

/** The base fee of a child of `parent` at `timestamp`, with the OP Stack's parameters where they apply. */
export function childBaseFee(
  config: ChainConfig,
  parent: Header,
  number: bigint,
  timestamp: bigint,
): bigint | undefined {
  if (!isBlockForkActive(config, 'londonBlock', number)) return undefined;
  if (!isBlockForkActive(config, 'londonBlock', parent.number) || parent.baseFeePerGas === undefined)
    return 1_000_000_000n;
  let params: BaseFeeParams = ETHEREUM_BASE_FEE_PARAMS;
  let minBaseFee = 0n;
  let gasUsed = parent.gasUsed;
  const op = config.optimism;
  if (op) {
    if (isTimeForkActive(config, 'holoceneTime', parent.timestamp) && parent.extraData.length >= 9) {
      params = { denominator: u32(parent.extraData, 1), elasticity: u32(parent.extraData, 5) };
    } else {
      const canyon = isTimeForkActive(config, 'canyonTime', timestamp);
      params = {
        denominator: canyon ? (op.eip1559DenominatorCanyon ?? op.eip1559Denominator) : op.eip1559Denominator,
        elasticity: op.eip1559Elasticity,
      };
    }
    if (isTimeForkActive(config, 'jovianTime', parent.timestamp)) {
      if (parent.extraData.length >= 17) minBaseFee = u64(parent.extraData, 9);
      // Jovian: the DA footprint (in blobGasUsed) counts when it exceeds the gas used.
      if ((parent.blobGasUsed ?? 0n) > gasUsed) gasUsed = parent.blobGasUsed ?? 0n;
    }
  }
  const fee = nextBaseFee({ gasLimit: parent.gasLimit, gasUsed, baseFeePerGas: parent.baseFeePerGas }, params);
  return fee > minBaseFee ? fee : minBaseFee;
}

/** What the fee recipient earns from a transaction: its effective tip times the gas it used. */
function tipOf(raw: Uint8Array, gasUsed: bigint, baseFee: bigint): bigint {
  if (raw[0] === TX_TYPE_DEPOSIT) return 0n;
  const tx = decodeTransaction(raw);
  const cap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  const tip = tx.maxPriorityFeePerGas ?? cap;
  const effective = cap - baseFee < tip ? cap - baseFee : tip;
  return effective > 0n ? effective * gasUsed : 0n;
}

export class BlockBuilder {
  private constructor(
    private readonly store: ChainStore,
    private readonly senders: SenderRecovery,
    private readonly executor: Executor,
    private readonly deps: BuilderDeps,
  ) {}

  static async create(store: ChainStore, senders: SenderRecovery, deps: BuilderDeps): Promise<BlockBuilder> {
    const config = store.config();
    const common = createCustomCommon({ chainId: Number(config.chainId) }, Mainnet, {
      customCrypto: { kzg: createKzg() },
    });
    const executor = await Executor.create({ common, state: new FlatState(store.stateReader()) });
    return new BlockBuilder(store, senders, executor, deps);
  }

  /**
   * Builds a block on the stored block `parentHash`. Throws BUILD_UNKNOWN_PARENT for a parent without state and
   * BUILD_INVALID_TRANSACTIONS when a forced transaction is invalid.
   */
  async build(parentHash: Uint8Array, attrs: BuildAttributes): Promise<BuiltBlock> {
    const config = this.store.config();
    const parent = this.store.headerByHash(parentHash);
    if (parent === undefined || !this.store.hasState(parentHash))
      throw new TernError(
        'BUILD_UNKNOWN_PARENT',
        `cannot build on unknown block 0x${Buffer.from(parentHash).toString('hex')}`,
      );
    const optimism = isOptimism(config);
    const number = parent.number + 1n;
    const t = attrs.timestamp;
    const cancun = isTimeForkActive(config, 'cancunTime', t);
    const shanghai = isTimeForkActive(config, 'shanghaiTime', t);
    const blobParams = blobParamsAt(config, t);
    const parentBlobParams = blobParamsAt(config, parent.timestamp);
    const excessBlobGas = cancun
      ? optimism || !parentBlobParams
        ? 0n
        : nextExcessBlobGas(parent, parentBlobParams)
      : undefined;
    const baseFee = childBaseFee(config, parent, number, t);
    const template: Header = {
      parentHash,
      uncleHash: EMPTY_UNCLE_HASH,
      coinbase: attrs.feeRecipient,
      stateRoot: EMPTY_TRIE_ROOT,
      transactionsRoot: EMPTY_TRIE_ROOT,
      receiptsRoot: EMPTY_TRIE_ROOT,
      logsBloom: new Uint8Array(256),
      difficulty: 0n,
      number,
      gasLimit: attrs.gasLimit ?? parent.gasLimit,
      gasUsed: 0n,
      timestamp: t,
      extraData: optimism ? opExtraData(config, t, attrs.eip1559Params, attrs.minBaseFee) : new Uint8Array(0),
      mixHash: attrs.prevRandao,
      nonce: new Uint8Array(8),
      baseFeePerGas: baseFee,
      withdrawalsRoot: shanghai ? EMPTY_TRIE_ROOT : undefined,
      blobGasUsed: cancun ? 0n : undefined,
      excessBlobGas,
      parentBeaconBlockRoot: cancun ? (attrs.parentBeaconBlockRoot ?? new Uint8Array(32)) : undefined,
      requestsHash: isTimeForkActive(config, 'pragueTime', t) ? EMPTY_REQUESTS_HASH : undefined,
    };
    const withdrawals = shanghai ? [...(attrs.withdrawals ?? [])] : undefined;

    const forced = [...(attrs.transactions ?? [])];
    const recovered = await this.senders.recover(forced);
    const forcedSenders = recovered.map((r, i) => {
      if (!r.ok) throw new TernError('BUILD_INVALID_TRANSACTIONS', `transaction ${i}: ${r.message}`);
      return r.address;
    });

    const snapshot = this.store.db.kv.snapshot();
    try {
      const db = new DbStateReader(snapshot);
      const reader: StateReader =
        Buffer.compare(parentHash, this.store.head().hash) === 0 ? db : new TrieStateReader(db, parent.stateRoot);
      const run = async (txs: Uint8Array[], senders: Uint8Array[]): Promise<BlockOutcome> => {
        this.executor.state.reset(reader);
        return processBlock({
          executor: this.executor,
          config,
          block: { header: template, transactions: txs, uncles: [], withdrawals },
          senders,
          getBlockHash: (n) => this.ancestorHash(parent, parentHash, n),
        });
      };

      let txs = forced;
      let senders = forcedSenders;
      let outcome: BlockOutcome;
      try {
        outcome = await run(txs, senders);
      } catch (err) {
        if (err instanceof TernError && err.code === 'BLOCK_INVALID_TX')
          throw new TernError('BUILD_INVALID_TRANSACTIONS', err.message);
        throw err;
      }
      const pool = this.deps.pool;
      if (pool && !attrs.noTxPool && baseFee !== undefined) {
        const picked = this.pickFromPool(
          pool,
          template.gasLimit - outcome.gasUsed,
          baseFee,
          optimism,
          blobParams && excessBlobGas !== undefined ? blobBaseFee(excessBlobGas, blobParams) : undefined,
        );
        let candidates = picked;
        for (let attempt = 0; candidates.txs.length > 0; attempt++) {
          try {
            outcome = await run([...forced, ...candidates.txs], [...forcedSenders, ...candidates.senders]);
            txs = [...forced, ...candidates.txs];
            senders = [...forcedSenders, ...candidates.senders];
            break;
          } catch (err) {
            if (!(err instanceof TernError) || err.code !== 'BLOCK_INVALID_TX') throw err;
            const at = /invalid transaction (\d+)/.exec(err.message);
            const i = at ? Number(at[1]) - forced.length : -1;
            if (attempt >= MAX_RETRIES || i < 0 || i >= candidates.txs.length) {
              candidates = { txs: [], senders: [] };
              outcome = await run(forced, forcedSenders);
              break;
            }
            this.deps.logger.debug('Dropping pool transaction from the block', { reason: err.message });
            candidates = {
              txs: candidates.txs.filter((_, j) => j !== i),
              senders: candidates.senders.filter((_, j) => j !== i),
            };
          }
        }
      }

      const diff = this.executor.state.diff();
      const commitment = new StateCommitment(db).apply(parent.stateRoot, diff);
      const requestsHash = (outcome as { requestsHash?: Uint8Array }).requestsHash;
      const isthmus = optimism && isTimeForkActive(config, 'isthmusTime', t);
      const header: Header = {
        ...template,
        stateRoot: commitment.root,
        transactionsRoot: transactionsRoot(txs),
        receiptsRoot: orderedTrieRoot(outcome.receipts.map(encodeReceiptForRoot)),
        logsBloom: outcome.logsBloom,
        gasUsed: outcome.gasUsed,
        withdrawalsRoot: isthmus
          ? messagePasserRoot(commitment, reader)
          : withdrawals
            ? withdrawalsRoot(withdrawals)
            : undefined,
        blobGasUsed: cancun ? outcome.blobGasUsed : undefined,
        requestsHash: template.requestsHash ? (requestsHash ?? template.requestsHash) : undefined,
      };
      const block: Block = { header, transactions: txs, uncles: [], withdrawals };
      let blockValue = 0n;
      let cumulative = 0n;
      outcome.receipts.forEach((r, i) => {
        blockValue += tipOf(txs[i]!, r.cumulativeGasUsed - cumulative, baseFee ?? 0n);
        cumulative = r.cumulativeGasUsed;
      });
      return { block, hash: headerHash(header), receipts: outcome.receipts, diff, commitment, senders, blockValue };
    } finally {
      snapshot.release();
    }
  }

  /** Pool transactions whose gas limits fit in `gas`, in the pool's order. */
  private pickFromPool(
    pool: TxPool,
    gas: bigint,
    baseFee: bigint,
    optimism: boolean,
    blobFee: bigint | undefined,
  ): { txs: Uint8Array[]; senders: Uint8Array[] } {
    const txs: Uint8Array[] = [];
    const senders: Uint8Array[] = [];
    let left = gas;
    const it = pool.pendingForBlock({
      baseFee,
      gasLimit: left,
      ...(blobFee !== undefined ? { blobBaseFee: blobFee } : {}),
    });
    for (const { tx, sender } of it) {
      if (left < MIN_TX_GAS) break;
      // No blob transactions on OP chains (Ecotone), and deposits never come from the pool.
      if ((optimism && tx.type === TX_TYPE_BLOB) || tx.type === TX_TYPE_DEPOSIT || tx.gasLimit > left) {
        it.skipSender(sender);
        continue;
      }
      if (tx.type === TX_TYPE_BLOB && (blobFee === undefined || tx.blobVersionedHashes === undefined)) {
        it.skipSender(sender);
        continue;
      }
      txs.push(tx.raw);
      senders.push(sender);
      left -= tx.gasLimit;
    }
    return { txs, senders };
  }

  /** BLOCKHASH of the block being built: ancestors of the parent, whichever branch it is on. */
  private ancestorHash(parent: Header, parentHash: Uint8Array, n: bigint): Uint8Array | undefined {
    if (n > parent.number) return undefined;
    let h: Header | undefined = parent;
    let hash = parentHash;
    while (h !== undefined && h.number > n) {
      if (this.store.isCanonical(hash)) return this.store.canonicalHash(n);
      hash = h.parentHash;
      h = this.store.headerByHash(hash);
    }
    return h === undefined ? undefined : hash;
  }
}
