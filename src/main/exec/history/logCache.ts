// --cache.blocklogs: the decoded logs of recent blocks, kept between eth_getLogs / filter requests (../rpc/logs.ts).

import { transactionHash } from '../../primitives/block/block.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { Log } from '../../primitives/receipt/receipt.js';
import type { ChainView, HeaderRef } from '../chain/chainView.js';

/** One log of a block with its position, as cached between requests (--cache.blocklogs). */
export interface BlockLog {
  log: Log;
  txIndex: number;
  logIndex: number;
  txHash: string;
}

/** Decoded logs of recent blocks by block hash (a hash fixes the receipts, so entries never go stale). */
const logCache = new Map<string, BlockLog[]>();
let logCacheSize = 32;

/** --cache.blocklogs: how many blocks' decoded logs the filter code keeps; 0 disables the cache. */
export function configureLogCache(blocks: number): void {
  logCacheSize = Math.max(0, Math.floor(blocks));
  while (logCache.size > logCacheSize) logCache.delete(logCache.keys().next().value as string);
}

export function blockLogList(view: ChainView, ref: HeaderRef): BlockLog[] | undefined {
  const key = Buffer.from(ref.hash).toString('hex');
  const cached = logCache.get(key);
  if (cached) {
    logCache.delete(key);
    logCache.set(key, cached);
    return cached;
  }
  const receipts = view.receipts(ref);
  if (!receipts) return undefined;
  const block = view.block(ref.hash);
  const out: BlockLog[] = [];
  let logIndex = 0;
  receipts.forEach((r, txIndex) => {
    const raw = block?.transactions[txIndex];
    const txHash = raw ? hex(transactionHash(raw)) : `0x${'00'.repeat(32)}`;
    for (const log of r.logs) out.push({ log, txIndex, logIndex: logIndex++, txHash });
  });
  if (logCacheSize > 0) {
    logCache.set(key, out);
    if (logCache.size > logCacheSize) logCache.delete(logCache.keys().next().value as string);
  }
  return out;
}
