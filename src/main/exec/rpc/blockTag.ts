// Block selectors resolved against a chain view with geth's semantics (eth/api_backend.go):
// - `latest` is the head; `pending` is the head too, as op-geth serves it when it does not compute a pending
//   block, or with --rollup.computependingblock the block computed from the pool (./pending.ts) when the request
//   asked the backend for it; `earliest` is block 0 (no history is pruned);
// - `safe` and `finalized` are the blocks the consensus client marked, an error when none is marked yet;
// - a number is the canonical block at that height, absent (null) above the head;
// - a hash (EIP-1898) is any stored block, and with `requireCanonical` only a canonical one.

import type { BlockNumberOrHash, BlockNumberParam } from '../../common/rpc/params.js';
import { fromHex } from '../../primitives/bytes.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import type { ChainView, HeaderRef } from '../chain/chainView.js';

/** geth's HeaderByNumber / BlockByNumber: the block a number or tag names, undefined when there is none. */
export function headerByNumber(view: ChainView, n: BlockNumberParam): HeaderRef | undefined {
  switch (n) {
    case 'latest':
      return view.head();
    case 'pending':
      return view.pending?.ref ?? view.head();
    case 'earliest':
      return view.headerByNumber(0n);
    case 'safe': {
      const safe = view.safe();
      if (!safe) throw serverError('safe block not found');
      return safe;
    }
    case 'finalized': {
      const finalized = view.finalized();
      if (!finalized) throw serverError('finalized block not found');
      return finalized;
    }
    default:
      return view.headerByNumber(n);
  }
}

/** A block by hash; undefined when unknown. */
export function headerByHash(view: ChainView, hash: string | Uint8Array): HeaderRef | undefined {
  const h = typeof hash === 'string' ? fromHex(hash) : hash;
  const header = view.headerByHash(h);
  return header ? { header, hash: h } : undefined;
}

/**
 * geth's BlockByNumberOrHash: the selected block or undefined (answered as null), an error only for a hash that is
 * not canonical when that was required (and for unmarked safe/finalized).
 */
export function blockRef(view: ChainView, sel: BlockNumberOrHash): HeaderRef | undefined {
  if (sel.blockHash === undefined) return headerByNumber(view, sel.blockNumber);
  const ref = headerByHash(view, sel.blockHash);
  if (ref && sel.requireCanonical && !view.isCanonical(ref)) throw serverError('hash is not currently canonical');
  return ref;
}

/** geth's StateAndHeaderByNumberOrHash: the block whose state is read; an unknown block is an error here. */
export function stateBlockRef(view: ChainView, sel: BlockNumberOrHash): HeaderRef {
  if (sel.blockHash === undefined) {
    const ref = headerByNumber(view, sel.blockNumber);
    if (!ref) throw serverError('header not found');
    return ref;
  }
  const ref = headerByHash(view, sel.blockHash);
  if (!ref) throw serverError('header for hash not found');
  if (sel.requireCanonical && !view.isCanonical(ref)) throw serverError('hash is not currently canonical');
  return ref;
}

/** Whether the selector is the `pending` tag. */
export function isPending(sel: BlockNumberOrHash | BlockNumberParam): boolean {
  return typeof sel === 'object' ? sel.blockNumber === 'pending' : sel === 'pending';
}
