// --rollup.computependingblock's builds on the call workers (../workers/pendingBuild.ts), so that building the
// pending block (a block's worth of EVM work) never stops this thread: the pool's candidates are taken here, where
// the pool lives, and the worker builds on its own LMDB snapshot. With the in-memory store (no other thread can see
// it) or without call workers the node keeps building on this thread (BlockBuilder).
import { TernError } from '../../common/errors.js';
import { type BuildCandidate, candidatesFor } from '../chain/buildCandidates.js';
import type { BuildAttributes, BuildTxSource } from '../chain/builder.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { PendingBuilder } from '../chain/pending.js';
import type { SnapshotPin } from '../evm/remoteScope.js';
import type { PendingBuilt } from '../workers/pendingBuild.js';
import type { CallPool } from './call.js';

export class WorkerPendingBuilder implements PendingBuilder {
  constructor(
    private readonly pool: CallPool,
    private readonly store: ChainStore,
    private readonly paths: SnapshotPin['paths'],
    private readonly txSource: BuildTxSource | undefined,
  ) {}

  async build(parentHash: Uint8Array, attrs: BuildAttributes): Promise<PendingBuilt> {
    const header = this.store.headerByHash(parentHash);
    const parent = header === undefined ? undefined : { header, hash: parentHash };
    const candidates: BuildCandidate[] = candidatesFor(this.store.config(), this.txSource, parent, attrs);
    const r = await this.pool.runResult('buildPending', { paths: this.paths, parent: parentHash, attrs, candidates });
    if (!r.ok) throw new TernError('PENDING_BUILD', r.error.message);
    return r.value;
  }
}
