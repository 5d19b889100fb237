// A run of consecutive blocks made canonical in one go (the execution-layer sync's chunks): the head moves back to
// the run's parent when it is elsewhere, then each block is imported on the head through the pipelined importer
// (senders recovered ahead, a block's state root hashed while the next one executes, writes queued in order).
import type { Block } from '../../primitives/block/block.js';
import { equalBytes } from '../../primitives/bytes.js';
import type { SenderResult } from '../senders/interface.js';
import type { ChainStore } from './chainStore.js';
import type { BlockImporter } from './importer.js';

/** A block of the run, with its senders when their recovery has already started. */
export interface ChainBlock {
  readonly block: Block;
  readonly senders?: Promise<SenderResult[]> | undefined;
}

/**
 * Imports `blocks` (each the child of the one before, the first a child of `parent`) as the canonical chain and
 * returns the last one's hash. An invalid block throws (InvalidBlockError, HEADER_*): the blocks before it stay
 * imported, nothing of it or after it is written.
 */
export async function importChain(
  store: ChainStore,
  importer: BlockImporter,
  parent: Uint8Array,
  blocks: readonly ChainBlock[],
): Promise<Uint8Array> {
  // The head is the parent unless this run starts at a reorg point, or the Engine API moved it meanwhile.
  if (!equalBytes(store.head().hash, parent)) await importer.setHead(parent);
  let last = parent;
  try {
    for (const { block, senders } of blocks) {
      const r = await importer.importBlock(block, { pipeline: true, ...(senders ? { senders } : {}) });
      last = r.hash;
    }
    await importer.settle();
  } catch (err) {
    await importer.settle().catch(() => {});
    throw err;
  }
  return last;
}
