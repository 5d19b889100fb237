// --verifier.l1-confs: derivation sees layer-1 blocks only `depth` blocks behind the head, so shallow reorgs never
// reach it. Lookups by number beyond head − depth answer L1_NOT_FOUND (temporary), as if the block did not exist yet.
import { TernError } from '../../common/errors.js';
import type { BlockLabel, Hex, L1BlockRef, L1CallOptions, L1Source } from './interface.js';

export function withConfDepth(source: L1Source, depth: number, head: () => L1BlockRef | undefined): L1Source {
  if (depth <= 0) return source;
  return {
    blockRefByLabel: (label: BlockLabel, opts?: L1CallOptions) => source.blockRefByLabel(label, opts),
    blockRefByNumber: async (num: number, opts?: L1CallOptions) => {
      const h = head() ?? (await source.blockRefByLabel('latest', opts));
      if (num + depth > h.number) {
        throw new TernError('L1_NOT_FOUND', `L1 block ${num} is within ${depth} confirmations of head ${h.number}`, {
          severity: 'temporary',
        });
      }
      return source.blockRefByNumber(num, opts);
    },
    blockRefByHash: (hash: Hex, opts?: L1CallOptions) => source.blockRefByHash(hash, opts),
    infoByHash: (hash: Hex, opts?: L1CallOptions) => source.infoByHash(hash, opts),
    infoAndTxsByHash: (hash: Hex, opts?: L1CallOptions) => source.infoAndTxsByHash(hash, opts),
    fetchReceipts: (hash: Hex, opts?: L1CallOptions) => source.fetchReceipts(hash, opts),
  };
}
