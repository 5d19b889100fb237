// The BlockExecutor on the calling thread: the BlockImporter and BlockBuilder over the coordinator's ChainStore (its
// head and block caches move with the writes, head events fire from ChainStore.setHead). Sender recovery and state
// roots go to whatever stages the importer was given (exec/chain/stagePools.ts).

import type { Block } from '../../primitives/block/block.js';
import type { BlockBuilder, BuildAttributes, BuildTxSource } from '../chain/builder.js';
import { BuiltBlocks } from '../chain/builtBlocks.js';
import type { ChainStore, HeadChange } from '../chain/chainStore.js';
import { type ChainBlock, importChain } from '../chain/importChain.js';
import type { BlockImporter, ImportResult } from '../chain/importer.js';
import { trieNodeWrites } from '../chain/trieNodeWrites.js';
import type { BlockExecutor, BuiltPayload } from './interface.js';

export class InlineBlockExecutor implements BlockExecutor {
  /** Recent builds, for insertBuilt. */
  readonly #built = new BuiltBlocks();
  /** The last setHead, settled (the state pruner's barrier waits for it, then for its deferred nodes). */
  #lastSetHead: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly store: ChainStore,
    private readonly importer: BlockImporter,
    private readonly builder: BlockBuilder,
  ) {
    trieNodeWrites(store.db).setBarrier(async () => {
      await this.#lastSetHead;
      await store.nodeWriteLanded();
    });
  }

  insert(block: Block, opts: { defer?: boolean } = {}): Promise<ImportResult> {
    return this.importer.insertBlock(block, opts);
  }

  async insertBuilt(hash: Uint8Array): Promise<boolean> {
    const built = this.#built.get(hash);
    if (built === undefined) return false;
    await this.importer.settle();
    await this.importer.persistSide(built);
    return true;
  }

  importChain(parent: Uint8Array, blocks: readonly ChainBlock[]): Promise<Uint8Array> {
    return importChain(this.store, this.importer, parent, blocks);
  }

  setHead(hash: Uint8Array): Promise<HeadChange> {
    const change = this.importer.setHead(hash, { deferNodes: trieNodeWrites(this.store.db).deferrable });
    this.#lastSetHead = change.catch(() => {});
    return change;
  }

  async setForkchoiceMarkers(safe: Uint8Array | undefined, finalized: Uint8Array | undefined): Promise<void> {
    // The markers need no trie nodes: the head's deferred ones may still be on their way.
    await this.importer.settle({ nodes: false });
    return this.store.setForkchoiceMarkers(safe, finalized);
  }

  /** `pool`: where pool transactions come from, when not the builder's own (the executor thread's snapshot). */
  async build(parent: Uint8Array, attrs: BuildAttributes, pool?: BuildTxSource): Promise<BuiltPayload> {
    await this.importer.settle();
    const built = await (pool === undefined
      ? this.builder.build(parent, attrs)
      : this.builder.build(parent, attrs, pool));
    this.#built.keep(built);
    return { block: built.block, hash: built.hash, blockValue: built.blockValue };
  }

  /** Writes the held block, if any, and the head's deferred trie nodes (node shutdown). */
  close(): Promise<void> {
    trieNodeWrites(this.store.db).setBarrier(undefined);
    return this.importer.settle();
  }
}
