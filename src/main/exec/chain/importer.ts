// Block import (ARCHITECTURE.md "Data flow of block import"): validate the header against its parent and the
// body against the header, recover senders on the worker pool, execute on the flat state, check gas, receipts
// and bloom, compute the state root from the block's state diff (trie commitment), and persist everything in
// one atomic batch. importBlock extends the canonical head (import command, dev chain); insertBlock executes a
// block on any stored parent (flat state for the head's children, the trie for other parents) and stores it
// beside the chain without moving the head — the Engine API's newPayload; forkchoiceUpdated then calls
// ChainStore.setHead.
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { type Block, transactionsRoot, unclesHash, withdrawalsRoot } from '../../primitives/block/block.js';
import { type Header, headerHash } from '../../primitives/block/header.js';
import { isOptimism, isTimeForkActive } from '../../primitives/chainConfig.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { encodeReceiptForRoot } from '../../primitives/receipt/receipt.js';
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from '../../primitives/trie/root.js';
import { createKzg } from '../evm/kzg.js';
import { Executor } from '../evm/transition.js';
import { TrieStateReader } from '../rpc/stateAt.js';
import type { SenderRecovery } from '../senders/interface.js';
import { FlatState } from '../state/flatState.js';
import type { StateDiff, StateReader } from '../state/interface.js';
import { StateCommitment, type StateCommitmentResult } from '../state/trie/commitment.js';
import type { ChainStore } from './chainStore.js';
import { processBlock } from './processBlock.js';
import { DbStateReader } from './stateStore.js';
import { validateHeader } from './validateHeader.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const equal = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;

export interface ImportTimings {
  senders: number;
  execution: number;
  stateRoot: number;
  persistence: number;
}

export interface ImportResult {
  number: bigint;
  hash: Uint8Array;
  gasUsed: bigint;
  txs: number;
  /** 'known': the block was already stored (with its state) and nothing was done. */
  status: 'imported' | 'known';
  timings: ImportTimings;
}

function invalid(block: Block, message: string): never {
  throw new TernError(
    'BLOCK_INVALID',
    `block ${block.header.number} (${hex(headerHash(block.header))}) is invalid: ${message}`,
  );
}

/** The OP-Stack contract whose storage root is the withdrawals root of Isthmus headers. */
const L2_TO_L1_MESSAGE_PASSER = '0x4200000000000000000000000000000000000016';

/** A block executed on its parent's state and checked against its header, ready to persist. */
export interface ExecutedBlock {
  block: Block;
  hash: Uint8Array;
  receipts: Receipt[];
  diff: StateDiff;
  commitment: StateCommitmentResult;
  senders: Uint8Array[];
}

export class BlockImporter {
  private constructor(
    private readonly store: ChainStore,
    private readonly senders: SenderRecovery,
    private readonly executor: Executor,
    private readonly logger: Logger,
  ) {}

  static async create(store: ChainStore, senders: SenderRecovery, logger: Logger): Promise<BlockImporter> {
    const config = store.config();
    const common = createCustomCommon({ chainId: Number(config.chainId) }, Mainnet, {
      customCrypto: { kzg: createKzg() },
    });
    const executor = await Executor.create({ common, state: new FlatState(store.stateReader()) });
    return new BlockImporter(store, senders, executor, logger);
  }

  private result(block: Block, hash: Uint8Array, status: ImportResult['status'], timings: ImportTimings): ImportResult {
    return {
      number: block.header.number,
      hash,
      gasUsed: block.header.gasUsed,
      txs: block.transactions.length,
      status,
      timings,
    };
  }

  /** Imports a block that extends the canonical head and makes it the head (the fast path). */
  async importBlock(block: Block): Promise<ImportResult> {
    const header = block.header;
    const hash = headerHash(header);
    const timings: ImportTimings = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 };
    const known = this.store.canonicalHash(header.number);
    if (equal(known, hash) && header.number <= this.store.head().number)
      return this.result(block, hash, 'known', timings);
    const head = this.store.head();
    if (!equal(header.parentHash, head.hash)) {
      const parentKnown = this.store.headerByHash(header.parentHash) !== undefined;
      throw new TernError(
        parentKnown ? 'BLOCK_NOT_ON_HEAD' : 'BLOCK_UNKNOWN_PARENT',
        parentKnown
          ? `block ${header.number} does not extend the head ${head.number} (${hex(head.hash)}); import extends the canonical chain only`
          : `block ${header.number} has an unknown parent ${hex(header.parentHash)}`,
      );
    }
    const snapshot = this.store.db.kv.snapshot();
    try {
      const reader = new DbStateReader(snapshot);
      const done = await this.execute(block, hash, head.header, reader, reader, timings);
      const t = performance.now();
      await this.store.commitBlock({
        block,
        hash,
        receipts: done.receipts,
        diff: done.diff,
        storageRoots: done.commitment.storageRoots,
        newNodes: done.commitment.newNodes,
      });
      timings.persistence = performance.now() - t;
    } finally {
      snapshot.release();
    }
    this.logger.debug('Imported block', {
      number: header.number,
      hash: hex(hash),
      txs: block.transactions.length,
      gas: header.gasUsed,
    });
    return this.result(block, hash, 'imported', timings);
  }

  /**
   * Executes a block on its parent's state, wherever the parent is (canonical head, older canonical block or a side
   * chain), and stores it without moving the head. Throws BLOCK_UNKNOWN_PARENT when the parent (or its state) is
   * not stored, BLOCK_INVALID when the block is invalid.
   */
  async insertBlock(block: Block): Promise<ImportResult> {
    const header = block.header;
    const hash = headerHash(header);
    const timings: ImportTimings = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 };
    if (this.store.hasState(hash)) return this.result(block, hash, 'known', timings);
    const done = await this.executeOnParent(block, hash, timings);
    const t = performance.now();
    await this.persistSide(done);
    timings.persistence = performance.now() - t;
    this.logger.debug('Inserted block', { number: header.number, hash: hex(hash), txs: block.transactions.length });
    return this.result(block, hash, 'imported', timings);
  }

  /** Stores an executed block (from executeOnParent or the block builder) beside the chain. */
  async persistSide(done: ExecutedBlock): Promise<void> {
    await this.store.commitSideBlock({
      block: done.block,
      hash: done.hash,
      receipts: done.receipts,
      diff: done.diff,
      storageRoots: done.commitment.storageRoots,
      newNodes: done.commitment.newNodes,
    });
  }

  /** Executes and checks a block on its stored parent's state; nothing is written. */
  async executeOnParent(
    block: Block,
    hash: Uint8Array = headerHash(block.header),
    timings: ImportTimings = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 },
  ): Promise<ExecutedBlock> {
    const header = block.header;
    const parent = this.store.headerByHash(header.parentHash);
    if (parent === undefined || !this.store.hasState(header.parentHash))
      throw new TernError(
        'BLOCK_UNKNOWN_PARENT',
        `block ${header.number} has an unknown parent ${hex(header.parentHash)}`,
      );
    const snapshot = this.store.db.kv.snapshot();
    try {
      const db = new DbStateReader(snapshot);
      const onHead = equal(header.parentHash, this.store.head().hash);
      const reader: StateReader = onHead ? db : new TrieStateReader(db, parent.stateRoot);
      return await this.execute(block, hash, parent, reader, db, timings, !this.store.isCanonical(header.parentHash));
    } finally {
      snapshot.release();
    }
  }

  /** BLOCKHASH for a block whose parent is not canonical: the side branch first, the canonical chain below it. */
  private ancestry(parent: Header, parentHash: Uint8Array): (n: bigint) => Uint8Array | undefined {
    const side = new Map<bigint, Uint8Array>();
    let h: Header | undefined = parent;
    let hash = parentHash;
    for (let i = 0; h !== undefined && i < 256 && !this.store.isCanonical(hash); i++) {
      side.set(h.number, hash);
      hash = h.parentHash;
      h = this.store.headerByHash(hash);
    }
    return (n) => (n > parent.number ? undefined : (side.get(n) ?? this.store.canonicalHash(n)));
  }

  private async execute(
    block: Block,
    hash: Uint8Array,
    parent: Header,
    reader: StateReader,
    nodes: DbStateReader,
    timings: ImportTimings,
    onSideChain = false,
  ): Promise<ExecutedBlock> {
    const config = this.store.config();
    const header = block.header;
    const optimism = isOptimism(config);
    try {
      validateHeader(config, header, parent, optimism ? { optimism } : {});
    } catch (err) {
      invalid(block, (err as Error).message);
    }
    if (block.uncles.length > 0 || !equal(unclesHash(block.uncles), header.uncleHash))
      invalid(block, 'uncles are not allowed');
    if (!equal(transactionsRoot(block.transactions), header.transactionsRoot))
      invalid(block, 'transaction root hash mismatch');
    if ((header.withdrawalsRoot === undefined) !== (block.withdrawals === undefined))
      invalid(block, 'withdrawals presence does not match the header');
    // Isthmus puts the message passer's storage root in withdrawalsRoot (checked after execution).
    const isthmus = optimism && isTimeForkActive(config, 'isthmusTime', header.timestamp);
    if (isthmus && (block.withdrawals?.length ?? 0) > 0) invalid(block, 'withdrawals are not allowed on OP chains');
    if (!isthmus && block.withdrawals && !equal(withdrawalsRoot(block.withdrawals), header.withdrawalsRoot))
      invalid(block, 'withdrawals root hash mismatch');

    let t = performance.now();
    const recovered = await this.senders.recover(block.transactions);
    const senders: Uint8Array[] = [];
    recovered.forEach((r, i) => {
      if (!r.ok) invalid(block, `transaction ${i}: ${r.message}`);
      senders.push(r.address);
    });
    timings.senders = performance.now() - t;

    t = performance.now();
    this.executor.state.reset(reader);
    let outcome: Awaited<ReturnType<typeof processBlock>>;
    try {
      outcome = await processBlock({
        executor: this.executor,
        config,
        block,
        senders,
        getBlockHash: onSideChain ? this.ancestry(parent, header.parentHash) : (n) => this.store.canonicalHash(n),
      });
    } catch (err) {
      if (err instanceof TernError && (err.code === 'BLOCK_INVALID_TX' || err.code === 'BLOCK_INVALID_BODY'))
        invalid(block, err.message);
      throw err;
    }
    if (outcome.gasUsed !== header.gasUsed)
      invalid(block, `gas used mismatch: header ${header.gasUsed}, executed ${outcome.gasUsed}`);
    if (header.blobGasUsed !== undefined && outcome.blobGasUsed !== header.blobGasUsed) {
      invalid(block, `blob gas used mismatch: header ${header.blobGasUsed}, executed ${outcome.blobGasUsed}`);
    }
    const receiptsRoot = orderedTrieRoot(outcome.receipts.map(encodeReceiptForRoot));
    if (!equal(receiptsRoot, header.receiptsRoot))
      invalid(block, `receipt root mismatch: header ${hex(header.receiptsRoot)}, executed ${hex(receiptsRoot)}`);
    if (!equal(outcome.logsBloom, header.logsBloom)) invalid(block, 'logs bloom mismatch');
    const requestsHash = (outcome as { requestsHash?: Uint8Array }).requestsHash;
    if (requestsHash !== undefined && header.requestsHash !== undefined && !equal(requestsHash, header.requestsHash))
      invalid(block, `requests hash mismatch: header ${hex(header.requestsHash)}, executed ${hex(requestsHash)}`);
    const diff = this.executor.state.diff();
    timings.execution = performance.now() - t;

    t = performance.now();
    const commitment = new StateCommitment(nodes).apply(parent.stateRoot, diff);
    if (!equal(commitment.root, header.stateRoot)) {
      invalid(block, `state root mismatch: header ${hex(header.stateRoot)}, executed ${hex(commitment.root)}`);
    }
    if (isthmus) {
      const root = messagePasserRoot(commitment, reader);
      if (!equal(root, header.withdrawalsRoot))
        invalid(
          block,
          `withdrawals root mismatch: header ${hex(header.withdrawalsRoot ?? new Uint8Array())}, message passer storage root ${hex(root)}`,
        );
    }
    timings.stateRoot = performance.now() - t;
    return { block, hash, receipts: outcome.receipts, diff, commitment, senders };
  }
}

/** The L2ToL1MessagePasser's storage root after a block: from the block's commitment, else as it was. */
export function messagePasserRoot(commitment: StateCommitmentResult, before: StateReader): Uint8Array {
  const changed = commitment.storageRoots.get(L2_TO_L1_MESSAGE_PASSER);
  if (changed !== undefined) return changed;
  const address = Uint8Array.from(Buffer.from(L2_TO_L1_MESSAGE_PASSER.slice(2), 'hex'));
  return before.getAccount(address)?.storageRoot ?? EMPTY_TRIE_ROOT;
}
