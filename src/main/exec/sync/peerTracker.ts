// Which peer the sync asks next, and how long it waits for an answer: one request per peer at a time, every
// request under a timeout (the peer's own signal is aborted too, and the wait ends even if the peer ignores it),
// a peer that keeps timing out is penalised, one that timed out rests before it is asked again.
import { TernError } from '../../common/errors.js';
import type { PeerSet, SyncPeer } from './peer.js';

export interface PeerTrackerOptions {
  /** How long one request may take. */
  requestTimeoutMs: number;
  /** Timeouts in a row after which the peer is penalised (dropped by the transport). */
  maxTimeouts: number;
  /** How long a peer that timed out is left alone (doubled for each timeout in a row). */
  restMs: number;
}

export const peerTrackerDefaults: PeerTrackerOptions = { requestTimeoutMs: 10_000, maxTimeouts: 3, restMs: 2_000 };

/** A request that got no answer in time. */
export class PeerTimeoutError extends TernError {
  constructor(peer: string) {
    super('SYNC_PEER_TIMEOUT', `peer ${peer.slice(0, 16)} did not answer in time`);
  }
}

export class PeerTracker {
  private readonly busy = new Set<string>();
  /** Timeouts in a row, by peer id. */
  private readonly timeouts = new Map<string, number>();
  private readonly restUntil = new Map<string, number>();
  /** Peers penalised by this sync: never asked again even if the transport keeps them. */
  private readonly banned = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly set: PeerSet,
    private readonly opts: PeerTrackerOptions = peerTrackerDefaults,
  ) {
    this.unsubscribe = set.onPeer(() => this.wake());
  }

  close(): void {
    this.unsubscribe();
    this.wake();
  }

  /** The peers that may be asked (not penalised), busy or not. */
  usable(): SyncPeer[] {
    return this.set.peers().filter((p) => !this.banned.has(p.id));
  }

  /** An idle, rested peer outside `exclude`; the one with the fewest timeouts first. */
  idle(exclude: ReadonlySet<string> = new Set()): SyncPeer | undefined {
    const now = Date.now();
    let best: SyncPeer | undefined;
    for (const p of this.usable()) {
      if (this.busy.has(p.id) || exclude.has(p.id) || (this.restUntil.get(p.id) ?? 0) > now) continue;
      if (best === undefined || (this.timeouts.get(p.id) ?? 0) < (this.timeouts.get(best.id) ?? 0)) best = p;
    }
    return best;
  }

  /** Runs one request on `peer` (marked busy meanwhile) under the request timeout and the caller's signal. */
  async request<T>(peer: SyncPeer, fn: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
    this.busy.add(peer.id);
    const ctl = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const e = new PeerTimeoutError(peer.id);
        ctl.abort(e);
        reject(e);
      }, this.opts.requestTimeoutMs);
    });
    let rejectAborted: (reason: unknown) => void = () => {};
    const aborted = new Promise<never>((_, reject) => {
      rejectAborted = reject;
    });
    // Whichever of these loses the race may still reject later: that must not count as unhandled.
    aborted.catch(() => {});
    const onAbort = () => {
      ctl.abort(signal.reason);
      rejectAborted(signal.reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    const answer = Promise.resolve().then(() => fn(ctl.signal));
    answer.catch(() => {});
    try {
      const result = await Promise.race([answer, timeout, aborted]);
      this.timeouts.delete(peer.id);
      return result;
    } catch (err) {
      if (err instanceof PeerTimeoutError) this.timedOut(peer);
      throw err;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      this.busy.delete(peer.id);
      this.wake();
    }
  }

  /** Bad data: the transport drops the peer, and this sync never asks it again. */
  penalise(peer: SyncPeer, reason: string): void {
    this.banned.add(peer.id);
    peer.penalise(reason);
    this.wake();
  }

  private timedOut(peer: SyncPeer): void {
    const n = (this.timeouts.get(peer.id) ?? 0) + 1;
    this.timeouts.set(peer.id, n);
    if (n >= this.opts.maxTimeouts) this.penalise(peer, `${n} requests in a row timed out`);
    else this.restUntil.set(peer.id, Date.now() + this.opts.restMs * 2 ** (n - 1));
  }

  /** Resolves when a peer joins or becomes idle, after `ms` at most, or when `signal` aborts. */
  changed(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
