// The state reader at a header of the chain: the flat state for the view's head (fast: one key per account or slot),
// the Merkle-Patricia trie under the block's state root for any other imported block (../state/trieReader.ts), the
// parent's state with the pending block's changes on top for the computed pending block.
import { TernError } from '../../common/errors.js';
import type { StateReader } from '../state/interface.js';
import { PendingStateReader } from '../state/pendingReader.js';
import { TrieStateReader } from '../state/trieReader.js';
import { type ChainView, equalBytes, type HeaderRef } from './chainView.js';

/**
 * The state after block `ref`: the flat state for the view's head, the trie for any other block, the parent's state
 * with the changes on top for the computed pending block.
 */
export function stateAt(view: ChainView, ref: HeaderRef): StateReader {
  const pending = view.pending;
  if (pending && equalBytes(ref.hash, pending.ref.hash)) {
    const parent = view.headerByHash(pending.parentHash);
    if (!parent) throw new TernError('PENDING_PARENT', 'pending block parent not found');
    return new PendingStateReader(stateAt(view, { header: parent, hash: pending.parentHash }), pending.diff);
  }
  const flat = view.state();
  if (equalBytes(ref.hash, view.head().hash)) return flat;
  return new TrieStateReader(flat, ref.header.stateRoot);
}
