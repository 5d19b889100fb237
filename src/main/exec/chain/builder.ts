// Block building (engine_forkchoiceUpdated with payload attributes, later the --dev sealer): a block on a stored
// parent from the attributes — forced `transactions` first and in order (OP deposits and sequenced transactions),
// then, unless `noTxPool`, executable pool transactions while gas lasts — with receipts, state root and header.
//
// Execution goes through processBlock, the same code import runs, so a built block always imports. Pool
// transactions are packed by their gas limit (not by the gas they end up using) and a candidate that turns out
// invalid is dropped and the block re-executed; this trades some packing density for having one state transition.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { type Block, transactionsRoot, type Withdrawal, withdrawalsRoot } from '../../primitives/block/block.js';
import { blobBaseFee, ETHEREUM_BASE_FEE_PARAMS, nextBaseFee, nextExcessBlobGas } from '../../primitives/block/fees.js';
import { EMPTY_REQUESTS_HASH, EMPTY_UNCLE_HASH, type Header, headerHash } from '../../primitives/block/header.js';
import {
  blobParamsAt,
  type ChainConfig,
  isBlockForkActive,
  isOptimism,
  isTimeForkActive,
} from '../../primitives/chainConfig.js';
import { extraDataForPayload, INITIAL_BASE_FEE, nextBaseFeeOp, opBaseFeeConfig } from '../../primitives/op/eip1559.js';
import { encodeReceiptForRoot } from '../../primitives/receipt/receipt.js';
import { StateCommitment } from '../../primitives/trie/commitment.js';
import type { NodeReader } from '../../primitives/trie/interface.js';
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from '../../primitives/trie/root.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import type { TxHooks } from '../evm/context.js';
import { createExecutor } from '../evm/executor.js';
import type { Executor } from '../evm/transition.js';
import type { SenderRecovery } from '../senders/interface.js';
import type { StateReader } from '../state/interface.js';
import { DbStateReader } from '../state/stateStore.js';
import { TrieStateReader } from '../state/trieReader.js';
import type { BlockTxFilter } from '../txpool/interface.js';
import type { ChainStore } from './chainStore.js';
import { type ExecutedBlock, messagePasserRoot } from './importer.js';
import { type BlockOutcome, processBlock } from './processBlock.js';

const TX_TYPE_BLOB = 3;
const TX_TYPE_DEPOSIT = 0x7e;
const MIN_TX_GAS = 21_000n;
/** Re-executions allowed for pool candidates that fail; after that the block keeps only the forced transactions. */
const MAX_RETRIES = 8;

/** A pool transaction as the builder takes it: what it packs by, and the bytes it executes. */
export interface BuildTx {
  readonly tx: Pick<DecodedTx, 'type' | 'gasLimit' | 'raw' | 'blobVersionedHashes'>;
  /** The recovered sender, 20 bytes. */
  readonly sender: Uint8Array;
}

/**
 * Where a build takes pool transactions from, in the order a miner includes them (TxPool.pendingForBlock): the tx
 * pool itself, or on the executor thread a snapshot of its candidates (./buildCandidates.ts).
 */
export interface BuildTxSource {
  pendingForBlock(filter: BlockTxFilter): Iterable<BuildTx> & { skipSender(sender: Uint8Array): void };
}

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
  /** Absent: blocks hold the forced transactions only (unless a build is given a source). */
  pool?: BuildTxSource | undefined;
  /** A live tracer (--vmtrace) called around every transaction the builder executes. */
  tracer?: TxHooks | undefined;
}

/** A build that the attributes themselves make impossible (bad eip1559Params, a missing minBaseFee). */
function badAttributes(err: unknown): never {
  if (err instanceof TernError && err.code === 'EIP1559_PARAMS')
    throw new TernError('BUILD_INVALID_ATTRIBUTES', err.message);
  throw err;
}

/** The base fee of a child of `parent`: op-geth's CalcBaseFee on OP chains, EIP-1559 on Ethereum. */
function childBaseFee(config: ChainConfig, parent: Header, number: bigint, timestamp: bigint): bigint | undefined {
  if (!isBlockForkActive(config, 'londonBlock', number)) return undefined;
  if (config.optimism) return nextBaseFeeOp(parent, opBaseFeeConfig(config), timestamp);
  if (!isBlockForkActive(config, 'londonBlock', parent.number) || parent.baseFeePerGas === undefined)
    return INITIAL_BASE_FEE;
  const { gasLimit, gasUsed, baseFeePerGas } = parent;
  return nextBaseFee({ gasLimit, gasUsed, baseFeePerGas }, ETHEREUM_BASE_FEE_PARAMS);
}

/** The header of the block to build, with zeroed results (roots, gas used, bloom) that execution fills in. */
export function blockTemplate(
  config: ChainConfig,
  parent: Header,
  parentHash: Uint8Array,
  attrs: BuildAttributes,
): Header {
  const optimism = isOptimism(config);
  const number = parent.number + 1n;
  const t = attrs.timestamp;
  const cancun = isTimeForkActive(config, 'cancunTime', t);
  const parentBlobParams = blobParamsAt(config, parent.timestamp);
  let extraData: Uint8Array = new Uint8Array(0);
  let baseFee: bigint | undefined;
  try {
    if (optimism) extraData = extraDataForPayload(opBaseFeeConfig(config), t, attrs.eip1559Params, attrs.minBaseFee);
    baseFee = childBaseFee(config, parent, number, t);
  } catch (err) {
    badAttributes(err);
  }
  return {
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
    extraData,
    mixHash: attrs.prevRandao,
    nonce: new Uint8Array(8),
    baseFeePerGas: baseFee,
    withdrawalsRoot: isTimeForkActive(config, 'shanghaiTime', t) ? EMPTY_TRIE_ROOT : undefined,
    blobGasUsed: cancun ? 0n : undefined,
    // OP chains have no blobs: the excess stays 0.
    excessBlobGas: cancun
      ? optimism || !parentBlobParams
        ? 0n
        : nextExcessBlobGas(parent, parentBlobParams)
      : undefined,
    parentBeaconBlockRoot: cancun ? (attrs.parentBeaconBlockRoot ?? new Uint8Array(32)) : undefined,
    requestsHash: isTimeForkActive(config, 'pragueTime', t) ? EMPTY_REQUESTS_HASH : undefined,
  };
}

/**
 * What pool transactions a block with this header may take (TxPool.pendingForBlock's filter, with the whole block's
 * gas); undefined before London, when the builder takes none.
 */
export function poolFilterFor(config: ChainConfig, template: Header): BlockTxFilter | undefined {
  const baseFee = template.baseFeePerGas;
  if (baseFee === undefined) return undefined;
  const blobParams = blobParamsAt(config, template.timestamp);
  const excess = template.excessBlobGas;
  return {
    baseFee,
    gasLimit: template.gasLimit,
    ...(blobParams && excess !== undefined ? { blobBaseFee: blobBaseFee(excess, blobParams) } : {}),
  };
}

/**
 * Whether a pool transaction can never be in this block whatever gas is left (then its sender is skipped): blob
 * transactions on OP chains (Ecotone) or without a blob fee, and deposits, which never come from the pool.
 */
export function unfitForBlock(tx: BuildTx['tx'], optimism: boolean, filter: BlockTxFilter): boolean {
  if (tx.type === TX_TYPE_DEPOSIT || (optimism && tx.type === TX_TYPE_BLOB)) return true;
  return tx.type === TX_TYPE_BLOB && (filter.blobBaseFee === undefined || tx.blobVersionedHashes === undefined);
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

/** What assembleBlock executes on: the parent's state and trie nodes, from a database or from a witness. */
export interface AssembleInput {
  executor: Executor;
  config: ChainConfig;
  parent: Header;
  parentHash: Uint8Array;
  attrs: BuildAttributes;
  /** Senders of `attrs.transactions`, in order (a deposit's is ignored). */
  forcedSenders: readonly Uint8Array[];
  /** The parent's state. */
  reader: StateReader;
  /** The parent's trie nodes, for the post-state root. */
  nodes: NodeReader;
  getBlockHash: (number: bigint) => Uint8Array | undefined;
  /** Absent: the block holds the forced transactions only. */
  pool?: BuildTxSource | undefined;
  logger?: Logger | undefined;
}

/**
 * Builds a block from attributes on a parent's state: forced transactions, then pool transactions unless
 * `noTxPool`, then the state root and the header. Throws BUILD_INVALID_TRANSACTIONS when a forced transaction is
 * invalid, BUILD_INVALID_ATTRIBUTES when the attributes cannot give a header.
 */
export async function assembleBlock(input: AssembleInput): Promise<BuiltBlock> {
  const { executor, config, parent, parentHash, attrs, reader } = input;
  const optimism = isOptimism(config);
  const t = attrs.timestamp;
  const template = blockTemplate(config, parent, parentHash, attrs);
  const baseFee = template.baseFeePerGas;
  const withdrawals = isTimeForkActive(config, 'shanghaiTime', t) ? [...(attrs.withdrawals ?? [])] : undefined;
  const filter = poolFilterFor(config, template);

  const run = async (txs: Uint8Array[], senders: Uint8Array[]): Promise<BlockOutcome> => {
    executor.state.reset(reader);
    return processBlock({
      executor,
      config,
      block: { header: template, transactions: txs, uncles: [], withdrawals },
      senders,
      getBlockHash: input.getBlockHash,
    });
  };

  const forced = [...(attrs.transactions ?? [])];
  const forcedSenders = [...input.forcedSenders];
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
  const pool = input.pool;
  if (pool && !attrs.noTxPool && filter !== undefined) {
    let candidates = pickFromPool(pool, { ...filter, gasLimit: template.gasLimit - outcome.gasUsed }, optimism);
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
        input.logger?.debug('Dropping pool transaction from the block', { reason: err.message });
        candidates = {
          txs: candidates.txs.filter((_, j) => j !== i),
          senders: candidates.senders.filter((_, j) => j !== i),
        };
      }
    }
  }

  const diff = executor.state.diff();
  const commitment = new StateCommitment(input.nodes).apply(parent.stateRoot, diff);
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
    blobGasUsed: template.blobGasUsed !== undefined ? outcome.blobGasUsed : undefined,
    requestsHash: template.requestsHash ? (outcome.requestsHash ?? template.requestsHash) : undefined,
  };
  const block: Block = { header, transactions: txs, uncles: [], withdrawals };
  let blockValue = 0n;
  let cumulative = 0n;
  outcome.receipts.forEach((r, i) => {
    blockValue += tipOf(txs[i] as Uint8Array, r.cumulativeGasUsed - cumulative, baseFee ?? 0n);
    cumulative = r.cumulativeGasUsed;
  });
  return { block, hash: headerHash(header), receipts: outcome.receipts, diff, commitment, senders, blockValue };
}

/** Pool transactions whose gas limits fit in the filter's gas, in the pool's order. */
function pickFromPool(
  pool: BuildTxSource,
  filter: BlockTxFilter,
  optimism: boolean,
): { txs: Uint8Array[]; senders: Uint8Array[] } {
  const txs: Uint8Array[] = [];
  const senders: Uint8Array[] = [];
  let left = filter.gasLimit;
  const it = pool.pendingForBlock(filter);
  for (const { tx, sender } of it) {
    if (left < MIN_TX_GAS) break;
    if (tx.gasLimit > left || unfitForBlock(tx, optimism, filter)) {
      it.skipSender(sender);
      continue;
    }
    txs.push(tx.raw);
    senders.push(sender);
    left -= tx.gasLimit;
  }
  return { txs, senders };
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
    const keccak256 = store.preimages?.keccak256; // --vmdebug: KECCAK256 inputs recorded (./preimages.ts)
    const executor = await createExecutor(config, store.stateReader(), { keccak256 });
    executor.tracer = deps.tracer;
    return new BlockBuilder(store, senders, executor, deps);
  }

  /**
   * Builds a block on the stored block `parentHash`, with pool transactions from `pool` (the builder's own when
   * not given). Throws BUILD_UNKNOWN_PARENT for a parent without state and
   * BUILD_INVALID_TRANSACTIONS when a forced transaction is invalid.
   */
  async build(
    parentHash: Uint8Array,
    attrs: BuildAttributes,
    pool: BuildTxSource | undefined = this.deps.pool,
  ): Promise<BuiltBlock> {
    const parent = this.store.headerByHash(parentHash);
    if (parent === undefined || !this.store.hasState(parentHash))
      throw new TernError(
        'BUILD_UNKNOWN_PARENT',
        `cannot build on unknown block 0x${Buffer.from(parentHash).toString('hex')}`,
      );
    const recovered = await this.senders.recover(attrs.transactions ?? []);
    const forcedSenders = recovered.map((r, i) => {
      if (!r.ok) throw new TernError('BUILD_INVALID_TRANSACTIONS', `transaction ${i}: ${r.message}`);
      return r.address;
    });
    const snapshot = this.store.db.kv.snapshot();
    try {
      const db = new DbStateReader(snapshot);
      const onHead = Buffer.compare(parentHash, this.store.head().hash) === 0;
      return await assembleBlock({
        executor: this.executor,
        config: this.store.config(),
        parent,
        parentHash,
        attrs,
        forcedSenders,
        reader: onHead ? db : new TrieStateReader(db, parent.stateRoot),
        nodes: db,
        getBlockHash: (n) => this.ancestorHash(parent, parentHash, n),
        pool,
        logger: this.deps.logger,
      });
    } finally {
      snapshot.release();
    }
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
