// --exitwhensynced: stop the node once it has caught up with the chain. geth (cmd/geth startNode) waits for the
// downloader's DoneEvent and closes the node when the latest block of that sync is less than ten minutes old, logging
// "Synchronisation completed". tern-exec has no downloader: the consensus node drives it block by block through the
// Engine API (newPayload, forkchoiceUpdated), so "a sync finished" is each move of the canonical head, and the test
// is geth's: the node stops at the first head whose timestamp is less than ten minutes behind the wall clock.
// (As in geth, a node that is already at the tip stops at its next head; do not set it on a sequencer.)
import type { Logger } from '../../common/logger/index.js';
import { headEvents } from './headEvents.js';

/** geth's threshold: a head younger than this is "synced". */
export const SYNCED_MAX_AGE_SECONDS = 10 * 60;

export interface ExitWhenSyncedDeps {
  logger: Logger;
  /** Stops the node (the lifecycle's stop). */
  stop: (reason: string) => unknown;
  /** Wall clock in milliseconds (tests). */
  now?: () => number;
}

/** Watches the head of `db` and calls `stop` once it is synced; returns the unsubscription. */
export function exitWhenSynced(db: object, deps: ExitWhenSyncedDeps): () => void {
  const events = headEvents(db);
  const now = deps.now ?? Date.now;
  let done = false;
  const off = events.on((head) => {
    if (done) return;
    const age = Math.floor(now() / 1000) - Number(head.header.timestamp);
    if (age >= SYNCED_MAX_AGE_SECONDS) return;
    done = true;
    off();
    deps.logger.info('Synchronisation completed', {
      latestnum: head.number,
      latesthash: `0x${Buffer.from(head.hash).toString('hex')}`,
      age: `${Math.max(age, 0)}s`,
    });
    void deps.stop('synchronisation completed (--exitwhensynced)');
  });
  return off;
}
