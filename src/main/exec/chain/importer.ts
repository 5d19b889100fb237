// Block import (ARCHITECTURE.md "Data flow of block import"): validate the header against its parent and the
// body against the header, recover senders on the worker pool, execute on the flat state, check gas, receipts
// and bloom, compute the state root from the block's state diff (trie commitment), and persist everything in
// one atomic batch. The importer extends the canonical head; reorgs and side chains are the engine's business.
import { createCustomCommon, Mainnet } from '@ethereumjs/common';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { type Block, transactionsRoot, unclesHash, withdrawalsRoot } from '../../primitives/block/block.js';
import { headerHash } from '../../primitives/block/header.js';
import { encodeReceipt } from '../../primitives/receipt/receipt.js';
import { orderedTrieRoot } from '../../primitives/trie/root.js';
import { createKzg } from '../evm/kzg.js';
import { Executor } from '../evm/transition.js';
import type { SenderRecovery } from '../senders/interface.js';
import { FlatState } from '../state/flatState.js';
import { StateCommitment } from '../state/trie/commitment.js';
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
  /** 'known': the block was already in the chain and nothing was done. */
  status: 'imported' | 'known';
  timings: ImportTimings;
}

function invalid(block: Block, message: string): never {
  throw new TernError(
    'BLOCK_INVALID',
    `block ${block.header.number} (${hex(headerHash(block.header))}) is invalid: ${message}`,
  );
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

  async importBlock(block: Block): Promise<ImportResult> {
    const config = this.store.config();
    const header = block.header;
    const hash = headerHash(header);
    const timings: ImportTimings = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 };
    const known = this.store.canonicalHash(header.number);
    if (equal(known, hash))
      return {
        number: header.number,
        hash,
        gasUsed: header.gasUsed,
        txs: block.transactions.length,
        status: 'known',
        timings,
      };
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
    const parent = head.header;
    try {
      validateHeader(config, header, parent);
    } catch (err) {
      invalid(block, (err as Error).message);
    }
    if (block.uncles.length > 0 || !equal(unclesHash(block.uncles), header.uncleHash))
      invalid(block, 'uncles are not allowed');
    if (!equal(transactionsRoot(block.transactions), header.transactionsRoot))
      invalid(block, 'transaction root hash mismatch');
    if ((header.withdrawalsRoot === undefined) !== (block.withdrawals === undefined))
      invalid(block, 'withdrawals presence does not match the header');
    if (block.withdrawals && !equal(withdrawalsRoot(block.withdrawals), header.withdrawalsRoot))
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
    const snapshot = this.store.db.kv.snapshot();
    try {
      const reader = new DbStateReader(snapshot);
      this.executor.state.reset(reader);
      let outcome: Awaited<ReturnType<typeof processBlock>>;
      try {
        outcome = await processBlock({
          executor: this.executor,
          config,
          block,
          senders,
          getBlockHash: (n) => this.store.canonicalHash(n),
        });
      } catch (err) {
        if (err instanceof TernError && err.code === 'BLOCK_INVALID_TX') invalid(block, err.message);
        throw err;
      }
      if (outcome.gasUsed !== header.gasUsed)
        invalid(block, `gas used mismatch: header ${header.gasUsed}, executed ${outcome.gasUsed}`);
      if (header.blobGasUsed !== undefined && outcome.blobGasUsed !== header.blobGasUsed) {
        invalid(block, `blob gas used mismatch: header ${header.blobGasUsed}, executed ${outcome.blobGasUsed}`);
      }
      const receiptsRoot = orderedTrieRoot(outcome.receipts.map(encodeReceipt));
      if (!equal(receiptsRoot, header.receiptsRoot))
        invalid(block, `receipt root mismatch: header ${hex(header.receiptsRoot)}, executed ${hex(receiptsRoot)}`);
      if (!equal(outcome.logsBloom, header.logsBloom)) invalid(block, 'logs bloom mismatch');
      const diff = this.executor.state.diff();
      timings.execution = performance.now() - t;

      t = performance.now();
      const commitment = new StateCommitment(reader).apply(parent.stateRoot, diff);
      if (!equal(commitment.root, header.stateRoot)) {
        invalid(block, `state root mismatch: header ${hex(header.stateRoot)}, executed ${hex(commitment.root)}`);
      }
      timings.stateRoot = performance.now() - t;

      t = performance.now();
      await this.store.commitBlock({
        block,
        hash,
        receipts: outcome.receipts,
        diff,
        storageRoots: commitment.storageRoots,
        newNodes: commitment.newNodes,
      });
      timings.persistence = performance.now() - t;
      this.logger.debug('Imported block', {
        number: header.number,
        hash: hex(hash),
        txs: block.transactions.length,
        gas: header.gasUsed,
      });
      return {
        number: header.number,
        hash,
        gasUsed: header.gasUsed,
        txs: block.transactions.length,
        status: 'imported',
        timings,
      };
    } finally {
      snapshot.release();
    }
  }
}
