// Block references derivation passes between stages (op-node's eth.BlockID / L1BlockRef / L2BlockRef).
// Hashes are lowercase 0x-prefixed hex, numbers and timestamps are plain numbers (they stay far below 2^53).

export interface BlockId {
  readonly hash: string;
  readonly number: number;
}

export interface L1BlockRef extends BlockId {
  readonly parentHash: string;
  readonly timestamp: number;
}

export interface L2BlockRef extends BlockId {
  readonly parentHash: string;
  readonly timestamp: number;
  /** The L1 origin (epoch) of the block. */
  readonly l1origin: BlockId;
  /** Position of the block within its epoch; 0 for the first block of an epoch. */
  readonly sequenceNumber: number;
}
