// In-memory SyncPeers for the sync tests: each serves eth/68 GetBlockHeaders/GetBlockBodies from a ChainStore
// holding a chain, with switches for the misbehaviours the sync must survive (wrong headers, wrong bodies, silence).

import type { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import type { HeaderRequest, PeerSet, SyncPeer } from '../../../../../src/main/exec/sync/peer.js';
import { encodeBlock } from '../../../../../src/main/primitives/block/block.js';
import { encodeHeader } from '../../../../../src/main/primitives/block/header.js';
import { type RlpInput, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';

export type Misbehaviour = 'honest' | 'wrong-header' | 'bad-body' | 'silent' | 'empty';

export class FakePeer implements SyncPeer {
  readonly snap = false;
  penalties: string[] = [];
  requests = 0;

  constructor(
    readonly id: string,
    private readonly store: ChainStore,
    public behaviour: Misbehaviour = 'honest',
  ) {}

  head() {
    const h = this.store.head();
    return { hash: h.hash, number: h.number };
  }

  private wait<T>(signal: AbortSignal | undefined, value: () => T): Promise<T> {
    this.requests++;
    if (this.behaviour === 'silent')
      // Never answers; only the caller's abort ends the request (and the tracker's timeout even without it).
      return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
    return new Promise((resolve) => setImmediate(() => resolve(value())));
  }

  getBlockHeaders(req: HeaderRequest, signal?: AbortSignal): Promise<Uint8Array[]> {
    return this.wait(signal, () => {
      if (this.behaviour === 'empty') return [];
      const start = typeof req.origin === 'bigint' ? req.origin : this.store.headerByHash(req.origin)?.number;
      if (start === undefined || (typeof req.origin !== 'bigint' && !this.store.isCanonical(req.origin))) return [];
      const out: Uint8Array[] = [];
      for (let i = 0; i < req.amount; i++) {
        const n = req.reverse ? start - BigInt(i * (req.skip + 1)) : start + BigInt(i * (req.skip + 1));
        const h = n < 0n ? undefined : this.store.headerByNumber(n);
        if (h === undefined) break;
        // A liar: the right numbers, one header altered (so it no longer hashes to its child's parentHash).
        out.push(
          encodeHeader(this.behaviour === 'wrong-header' && i === out.length ? { ...h, gasUsed: h.gasUsed + 1n } : h),
        );
      }
      return out;
    });
  }

  getBlockBodies(hashes: Uint8Array[], signal?: AbortSignal): Promise<Uint8Array[]> {
    return this.wait(signal, () => {
      if (this.behaviour === 'empty') return [];
      const out: Uint8Array[] = [];
      for (const hash of hashes) {
        const b = this.store.blockByHash(hash);
        if (b === undefined) break;
        // A liar: the body of another block (transactions dropped), which the header's roots reject.
        const body = this.behaviour === 'bad-body' ? { ...b, transactions: b.transactions.slice(1) } : b;
        out.push(rlpEncode((rlpDecode(encodeBlock(body)) as RlpInput[]).slice(1)));
      }
      return out;
    });
  }

  getReceipts(): Promise<Uint8Array[][]> {
    return Promise.reject(new Error('not used by full sync'));
  }

  snapRequest(): Promise<Uint8Array> {
    return Promise.reject(new Error('no snap'));
  }

  penalise(reason: string): void {
    this.penalties.push(reason);
  }
}

export class FakePeerSet implements PeerSet {
  private readonly list: SyncPeer[] = [];
  private readonly listeners = new Set<(p: SyncPeer) => void>();

  add(peer: SyncPeer): void {
    this.list.push(peer);
    for (const l of this.listeners) l(peer);
  }
  peers(): readonly SyncPeer[] {
    return this.list;
  }
  onPeer(listener: (peer: SyncPeer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  onPeerLeft(): () => void {
    return () => {};
  }
}
