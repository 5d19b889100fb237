// A downloaded block body against the header it claims to belong to: the roots in the header commit to the
// transactions, uncles and withdrawals, so a body that does not match was not that block's (the peer lied). The
// importer checks these again; checking here tells which peer sent it, before the block is queued for import.
import { type Block, decodeBody, transactionsRoot, unclesHash, withdrawalsRoot } from '../../primitives/block/block.js';
import type { Header } from '../../primitives/block/header.js';
import { equalBytes } from '../../primitives/bytes.js';
import { type ChainConfig, isOptimism, isTimeForkActive } from '../../primitives/chainConfig.js';

/** The block made of `header` and the RLP `body`, or the reason the body is not that header's. */
export function blockFromBody(config: ChainConfig, header: Header, body: Uint8Array): Block | string {
  let decoded: Omit<Block, 'header'>;
  try {
    decoded = decodeBody(body);
  } catch (err) {
    return `undecodable body: ${(err as Error).message}`;
  }
  if (!equalBytes(unclesHash(decoded.uncles), header.uncleHash)) return 'uncles hash mismatch';
  if (!equalBytes(transactionsRoot(decoded.transactions), header.transactionsRoot)) return 'transactions root mismatch';
  if ((header.withdrawalsRoot === undefined) !== (decoded.withdrawals === undefined))
    return 'withdrawals presence does not match the header';
  // Isthmus headers carry the message passer's storage root there, checked when the block executes.
  const isthmus = isOptimism(config) && isTimeForkActive(config, 'isthmusTime', header.timestamp);
  if (decoded.withdrawals !== undefined && header.withdrawalsRoot !== undefined) {
    if (
      isthmus
        ? decoded.withdrawals.length > 0
        : !equalBytes(withdrawalsRoot(decoded.withdrawals), header.withdrawalsRoot)
    )
      return 'withdrawals root mismatch';
  }
  return { header, ...decoded };
}
