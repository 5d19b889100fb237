// BlockExecutor (ARCHITECTURE.md worker services): the one owner of block execution and of the writes that move the
// canonical chain — newPayload's execute-check-store, side chains and reorgs (forkchoice to any stored block), the
// execution-layer sync's imports, and block building for the sequencer. The Engine API (the coordinator) decodes,
// checks the request's shape, reads the chain through its own ChainStore and calls only this interface to change it.
// Every method takes and returns plain data (blocks, hashes, stage times), so an implementation may run on another
// thread; built blocks stay with the executor (their state diff and trie nodes) and are stored by hash.
//
// Twins: ./inline.ts (the calling thread) and ./worker.ts (a dedicated executor thread over the shared LMDB
// environment, which builds on the pool candidates the coordinator sends; see there).
import type { Block } from '../../primitives/block/block.js';
import type { BuildAttributes } from '../chain/builder.js';
import type { HeadChange } from '../chain/chainStore.js';
import type { ChainBlock } from '../chain/importChain.js';
import type { ImportResult } from '../chain/importer.js';

/** A block the executor built: what engine_getPayload answers with. */
export interface BuiltPayload {
  block: Block;
  hash: Uint8Array;
  /** Priority fees the fee recipient earns. */
  blockValue: bigint;
}

export interface BlockExecutor {
  /**
   * Executes a block on its stored parent's state (the head's child on the warm flat state, any other parent on
   * the trie), checks it and stores it beside the chain without moving the head; 'known' when it is stored with its
   * state already. Throws BLOCK_INVALID or HEADER_* for an invalid block (nothing of it is stored),
   * BLOCK_UNKNOWN_PARENT when the parent or its state is missing. With `defer`, a child of the head is held in
   * memory (result `held`) for a setHead to it that follows at once, which then writes it as the head in one
   * batch; any other call first stores it beside the chain (BlockImporter's held writes).
   */
  insert(block: Block, opts?: { defer?: boolean }): Promise<ImportResult>;
  /** Stores a block this executor built, without executing it again; false when it does not hold that block. */
  insertBuilt(hash: Uint8Array): Promise<boolean>;
  /** Makes a stored (or held) block with state the head (a reorg when it is on another branch): ChainStore.setHead. */
  setHead(hash: Uint8Array): Promise<HeadChange>;
  /** Writes the safe and finalized markers (canonical blocks; undefined leaves a marker as it is). */
  setForkchoiceMarkers(safe: Uint8Array | undefined, finalized: Uint8Array | undefined): Promise<void>;
  /**
   * The execution-layer sync's import: makes consecutive blocks after `parent` canonical (the head moves back to
   * `parent` first when it is elsewhere), pipelined as `tern-exec import` is; returns the last block's hash. An
   * invalid block throws BLOCK_INVALID or HEADER_*; the blocks before it stay imported.
   */
  importChain(parent: Uint8Array, blocks: readonly ChainBlock[]): Promise<Uint8Array>;
  /** Builds a block on `parent` (a stored block with state); BUILD_* errors for attributes that cannot build. */
  build(parent: Uint8Array, attrs: BuildAttributes): Promise<BuiltPayload>;
}
