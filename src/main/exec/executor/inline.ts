// The BlockExecutor on the calling thread: the BlockImporter and BlockBuilder over the coordinator's ChainStore (its
// head and block caches move with the writes, head events fire from ChainStore.setHead). Sender recovery and state
// roots go to whatever stages the importer was given (exec/chain/stagePools.ts).

import type { Block } from '../../primitives/block/block.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { BlockBuilder, BuildAttributes, BuiltBlock } from '../chain/builder.js';
import type { ChainStore, HeadChange } from '../chain/chainStore.js';
import type { BlockImporter, ImportResult } from '../chain/importer.js';
import type { BlockExecutor, BuiltPayload } from './interface.js';

/** Built blocks kept for insertBuilt: the Engine API keeps as many payloads for getPayload (geth keeps 10). */
export const MAX_BUILT_BLOCKS = 10;

export class InlineBlockExecutor implements BlockExecutor {
  /** Built blocks by hash, oldest first. */
  readonly #built = new Map<string, BuiltBlock>();

  constructor(
    private readonly store: ChainStore,
    private readonly importer: BlockImporter,
    private readonly builder: BlockBuilder,
  ) {}

  insert(block: Block): Promise<ImportResult> {
    return this.importer.insertBlock(block);
  }

  async insertBuilt(hash: Uint8Array): Promise<boolean> {
    const built = this.#built.get(hex(hash));
    if (built === undefined) return false;
    await this.importer.persistSide(built);
    return true;
  }

  setHead(hash: Uint8Array): Promise<HeadChange> {
    return this.store.setHead(hash);
  }

  setForkchoiceMarkers(safe: Uint8Array | undefined, finalized: Uint8Array | undefined): Promise<void> {
    return this.store.setForkchoiceMarkers(safe, finalized);
  }

  async build(parent: Uint8Array, attrs: BuildAttributes): Promise<BuiltPayload> {
    const built = await this.builder.build(parent, attrs);
    const key = hex(built.hash);
    this.#built.delete(key);
    if (this.#built.size >= MAX_BUILT_BLOCKS) this.#built.delete(this.#built.keys().next().value as string);
    this.#built.set(key, built);
    return { block: built.block, hash: built.hash, blockValue: built.blockValue };
  }
}
