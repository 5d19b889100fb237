// --rollup.computependingblock's build on a call worker: the pending block (../chain/pending.ts) executes the pool's
// candidates on top of the head, a block's worth of EVM work that would otherwise stop the coordinator for its
// whole length. The coordinator owns the pool, so it takes the candidates (../chain/buildCandidates.ts) and sends
// them with the parent and the attributes; this thread builds on its own read snapshot of the LMDB environment
// (./snapshotScope.ts) with a BlockBuilder of its own, and answers with what the pending block needs.
import { createLogger } from '../../common/logger/index.js';
import type { Block } from '../../primitives/block/block.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { type BuildCandidate, candidateSource } from '../chain/buildCandidates.js';
import { BlockBuilder, type BuildAttributes } from '../chain/builder.js';
import { ChainStore } from '../chain/chainStore.js';
import type { SnapshotPin } from '../evm/remoteScope.js';
import { InlineSenderRecovery } from '../senders/inline.js';
import type { StateDiff } from '../state/interface.js';
import { callDatabase } from './snapshotScope.js';

export interface PendingBuildInput {
  readonly paths: SnapshotPin['paths'];
  readonly parent: Uint8Array;
  readonly attrs: BuildAttributes;
  readonly candidates: BuildCandidate[];
}

/** The built block as the pending block keeps it. */
export interface PendingBuilt {
  readonly block: Block;
  readonly hash: Uint8Array;
  readonly receipts: Receipt[];
  readonly diff: StateDiff;
}

// Errors travel back with the task; nothing is logged from this thread.
const logger = createLogger({ level: 'silent', format: 'json' }).logger;
let opened: { key: string; store: ChainStore; builder: Promise<BlockBuilder> } | undefined;

/** Builds the pending block on `parent` from the candidates, on this thread's fresh snapshot. */
export async function buildPendingHere(input: PendingBuildInput): Promise<PendingBuilt> {
  const db = callDatabase(input.paths);
  // See what the coordinator committed: the parent it names is at least as new as this thread's last snapshot.
  db.kv.renewReads?.();
  if (opened?.key !== input.paths.chaindata) {
    const store = new ChainStore(db);
    opened = {
      key: input.paths.chaindata,
      store,
      builder: BlockBuilder.create(store, new InlineSenderRecovery(), { logger }),
    };
  }
  opened.store.reloadHead();
  try {
    const built = await (await opened.builder).build(input.parent, input.attrs, candidateSource(input.candidates));
    return { block: built.block, hash: built.hash, receipts: built.receipts, diff: built.diff };
  } finally {
    // Leave no read transaction open between builds (see snapshotScope.ts's unpin).
    db.kv.renewReads?.();
  }
}
