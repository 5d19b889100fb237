// Peer management driven by discovery (op-node's connection manager and DiscoveryProcess together): while the node
// has fewer than --p2p.peers.lo peers it dials discovered peers, a few at a time; above --p2p.peers.hi it prunes
// back down to the low tide, lowest score first, never a protected or static peer and never one connected for
// less than --p2p.peers.grace. libp2p 3 has no tide-based connection manager, so this module is it.
import type { PeerId } from '@libp2p/interface';
import type { Multiaddr } from '@multiformats/multiaddr';
import type { Logger } from '../../common/logger/index.js';

export interface PeerManagerOptions {
  lo: number;
  hi: number;
  graceMs: number;
  /** How often tides are checked (op-node polls every 5 s). */
  tickMs?: number;
}

/** The parts of the libp2p host the manager drives (P2PHost in production, a fake in tests). */
export interface ManagedHost {
  readonly selfId: string;
  /** The distinct peers with an open connection. */
  connectedPeers(): string[];
  dial(peer: PeerId, addr: Multiaddr): Promise<void>;
  hangUp(peer: string): Promise<void>;
  isProtected(peer: string): boolean;
  isBanned(peer: string): boolean;
  onConnect(listener: (peer: string) => void): void;
}

export interface PeerManagerDeps {
  host: ManagedHost;
  /** The peer's total score (gossipsub score plus application score); low scores are pruned first. */
  score(peer: string): number;
  logger: Logger;
  now?: () => number;
}

interface Candidate {
  peerId: PeerId;
  addr: Multiaddr;
  failures: number;
  nextDialAt: number;
}

/** Dials running at once (op-node's connectionWorkerCount). */
const DIAL_WORKERS = 4;
const MAX_CANDIDATES = 1024;
const RETRY_BASE_MS = 30_000;
const RETRY_MAX_MS = 10 * 60_000;

export class PeerManager {
  readonly #opts: PeerManagerOptions;
  readonly #deps: PeerManagerDeps;
  readonly #log: Logger;
  readonly #candidates = new Map<string, Candidate>();
  readonly #connectedAt = new Map<string, number>();
  readonly #dialing = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(opts: PeerManagerOptions, deps: PeerManagerDeps) {
    this.#opts = opts;
    this.#deps = deps;
    this.#log = deps.logger.child('peers');
    deps.host.onConnect((peer) => this.#connectedAt.set(peer, this.#now()));
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)();
  }

  start(): void {
    this.#timer = setInterval(() => this.tick(), this.#opts.tickMs ?? 5_000);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
  }

  /** True while below the low tide. */
  wantsPeers(): boolean {
    return this.#deps.host.connectedPeers().length < this.#opts.lo;
  }

  /** A peer found by discovery; dialled right away if the node wants peers. */
  addCandidate(peerId: PeerId, addr: Multiaddr): void {
    const id = peerId.toString();
    if (id === this.#deps.host.selfId) return;
    const known = this.#candidates.get(id);
    if (known !== undefined) {
      known.addr = addr;
    } else {
      if (this.#candidates.size >= MAX_CANDIDATES)
        this.#candidates.delete(this.#candidates.keys().next().value as string);
      this.#candidates.set(id, { peerId, addr, failures: 0, nextDialAt: 0 });
    }
    if (this.wantsPeers()) this.#connect();
  }

  candidates(): number {
    return this.#candidates.size;
  }

  tick(): void {
    this.#connect();
    this.#prune();
  }

  #connect(): void {
    const host = this.#deps.host;
    const connected = new Set(host.connectedPeers());
    const pending = [...this.#dialing].filter((id) => !connected.has(id)).length;
    let missing = this.#opts.lo - connected.size - pending;
    if (missing <= 0) return;
    const now = this.#now();
    // Shuffled, so every node does not pick the same peers first.
    const ready = [...this.#candidates.entries()].filter(
      ([id, c]) => !connected.has(id) && !this.#dialing.has(id) && c.nextDialAt <= now && !host.isBanned(id),
    );
    for (let i = ready.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [ready[i], ready[j]] = [ready[j] as [string, Candidate], ready[i] as [string, Candidate]];
    }
    for (const [id, c] of ready) {
      if (missing <= 0 || this.#dialing.size >= DIAL_WORKERS) break;
      missing--;
      this.#dialing.add(id);
      host
        .dial(c.peerId, c.addr)
        .then(() => {
          c.failures = 0;
          this.#log.debug('Connected to discovered peer', { peer: id, addr: c.addr.toString() });
        })
        .catch((err: Error) => {
          c.failures++;
          c.nextDialAt = this.#now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (c.failures - 1));
          this.#log.debug('Dial of discovered peer failed', { peer: id, err: err.message });
        })
        .finally(() => this.#dialing.delete(id));
    }
  }

  /** Above the high tide: close the lowest-scored prunable peers until the low tide is reached. */
  #prune(): void {
    const host = this.#deps.host;
    const peers = host.connectedPeers();
    for (const id of this.#connectedAt.keys()) if (!peers.includes(id)) this.#connectedAt.delete(id);
    if (peers.length <= this.#opts.hi) return;
    const now = this.#now();
    const prunable = peers
      .filter((p) => !host.isProtected(p))
      .filter((p) => now - (this.#connectedAt.get(p) ?? 0) >= this.#opts.graceMs)
      .map((p) => ({ p, score: this.#deps.score(p) }))
      .sort((a, b) => a.score - b.score);
    const excess = peers.length - this.#opts.lo;
    for (const { p, score } of prunable.slice(0, excess)) {
      this.#log.debug('Pruning peer above the high tide', { peer: p, score, peers: peers.length });
      void host.hangUp(p).catch(() => undefined);
    }
  }
}
