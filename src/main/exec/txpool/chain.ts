// What the pool reads from the chain: the head, account nonces and balances at the head, and blocks by hash (to
// find what a new head included and, on a reorg, what it dropped). ../chain/poolChain.ts reads the node's database
// through one snapshot per call; tests give a plain object.
import type { Block } from '../../primitives/block/block.js';
import type { Header } from '../../primitives/block/header.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';

export interface PoolHead {
  readonly header: Header;
  readonly hash: Uint8Array;
}

export interface PoolAccount {
  readonly nonce: bigint;
  readonly balance: bigint;
}

/** A consistent read of the chain, released after use. */
export interface PoolChainView {
  head(): PoolHead;
  account(address: Uint8Array): PoolAccount;
  block(hash: Uint8Array): Block | undefined;
  release(): void;
}

export interface PoolChain {
  readonly config: ChainConfig;
  view(): PoolChainView;
}
