// Where a mined transaction sits: the canonical block that holds it (through the transaction index) and its
// position. eth_getTransactionByHash, eth_getTransactionReceipt and GraphQL's `transaction` read it from here.
import { type Block, transactionHash } from '../../primitives/block/block.js';
import { type ChainView, equalBytes, type HeaderRef } from '../chain/chainView.js';

export interface MinedTx {
  block: Block;
  ref: HeaderRef;
  index: number;
}

/** The canonical transaction with this hash and where it is; undefined when not indexed or not canonical. */
export function findMinedTx(view: ChainView, hash: Uint8Array): MinedTx | undefined {
  const lookup = view.txLookup(hash);
  if (!lookup) return undefined;
  const ref = view.headerByNumber(BigInt(lookup.blockNumber));
  const block = ref && view.block(ref.hash);
  const raw = block?.transactions[lookup.index];
  if (!ref || !block || !raw || !equalBytes(transactionHash(raw), hash)) return undefined;
  return { block, ref, index: lookup.index };
}
