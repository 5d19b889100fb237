// `tern-exec snapshot prune-state [root]`: geth's offline state pruning. Keeps the head block's state and deletes
// every other trie node and unused contract code (history/offlinePruner.ts), with a bloom filter of
// --bloomfilter.size MB (geth raises values under 256 MB to 256). tern commits every block's trie, so the head's
// state is complete and is the one kept; a root argument must name it (geth's names one of its in-memory layers).
import { ReportedError, UsageError } from '../../common/errors.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { ChainStore, recoverHead } from '../chain/chainStore.js';
import { MissingStateError, pruneState } from '../history/offlinePruner.js';
import { MIN_BLOOM_MB } from '../history/stateBloom.js';
import type { ExecContext } from '../options.js';
import { commandHead, openChainDatabase } from './database.js';

/** --bloomfilter.size, MB. */
export interface SnapshotCommandOptions {
  bloomFilterMB: number;
}

export async function runSnapshot({ options, log, lifecycle }: ExecContext): Promise<'done'> {
  const logger = log.logger.child('pruner');
  const [verb, rootArg, ...rest] = options.args;
  if (verb !== 'prune-state')
    throw new UsageError(`snapshot: unknown command "${verb ?? ''}" (the snapshot commands: prune-state [root])`);
  if (rest.length > 0) throw new UsageError('snapshot prune-state takes at most one argument, the state root');
  let bloomMB = options.snapshot.bloomFilterMB;
  if (bloomMB < MIN_BLOOM_MB) {
    logger.warn('Sanitizing bloomfilter size', { 'provided(MB)': bloomMB, 'updated(MB)': MIN_BLOOM_MB });
    bloomMB = MIN_BLOOM_MB;
  }
  const db = await openChainDatabase(options.database, lifecycle, logger);
  const store = new ChainStore(db);
  commandHead(store);
  // A head whose trie nodes a crash lost has no trie to keep: back to the last block with its nodes first.
  await recoverHead(store, logger);
  const head = store.head();
  const root = head.header.stateRoot;
  if (rootArg !== undefined) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(rootArg))
      throw new UsageError(`snapshot prune-state: invalid state root "${rootArg}"`);
    if (rootArg.toLowerCase() !== hex(root))
      throw new UsageError(
        `snapshot prune-state: ${rootArg} is not the state root of the head block ${head.number} (${hex(root)}), the only state tern can keep`,
      );
  }
  logger.info('Pruning state data', { head: head.number, root: hex(root) });
  try {
    await pruneState(db.kv, { root, headNumber: Number(head.number), bloomMB }, { logger });
  } catch (err) {
    if (err instanceof MissingStateError) throw new ReportedError(`snapshot prune-state: ${err.message}`);
    if (err instanceof RangeError)
      throw new ReportedError(`snapshot prune-state: cannot allocate a ${bloomMB} MB bloom filter`);
    throw err;
  }
  return 'done';
}
