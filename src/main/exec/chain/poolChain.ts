// The chain as the transaction pool reads it (../txpool/chain.ts), over the node's database: one chain view
// (one snapshot) per read.
import type { ChainConfig } from '../../primitives/chainConfig.js';
import type { Database } from '../db/open.js';
import type { PoolChain, PoolChainView } from '../txpool/chain.js';
import { ChainView } from './chainView.js';

export function dbPoolChain(db: Database, config: ChainConfig): PoolChain {
  return {
    config,
    view(): PoolChainView {
      const v = ChainView.open(db, config);
      return {
        head: () => v.head(),
        account: (address) => {
          const a = v.state().getAccount(address);
          return { nonce: a?.nonce ?? 0n, balance: a?.balance ?? 0n };
        },
        block: (hash) => v.block(hash),
        release: () => v.release(),
      };
    },
  };
}
