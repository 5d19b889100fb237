// The application score of each peer, kept explainable: what it sent on the block topics (accepted, ignored,
// rejected with the last reason) and how it answered req-resp requests (answers, failures — rate-limit delays are
// not failures). A rejected gossip message costs REJECT_PENALTY and a bad or missing req-resp answer
// REQRESP_PENALTY; penalties decay by DECAY per minute, so a peer recovers from an accident, and one that keeps
// sending garbage crosses --p2p.ban.threshold (−100) and is banned for --p2p.ban.duration. Static peers are never
// banned; their score still shows.
import type { GossipsubParts } from './gossip.js';

export const REJECT_PENALTY = -20;
export const REQRESP_PENALTY = -5;
const DECAY_PER_MINUTE = 0.9;
const MAX_PEERS_TRACKED = 2048;

interface PeerRecord {
  accepted: number;
  ignored: number;
  rejected: number;
  lastReject?: string | undefined;
  reqRespOk: number;
  reqRespFailed: number;
  /** The decaying penalty sum (≤ 0). */
  penalty: number;
  updatedAt: number;
  bannedBecause?: string | undefined;
  bannedAt?: number | undefined;
}

export interface PeerScoresOptions {
  banEnabled: boolean;
  banThreshold: number;
  banDurationMs: number;
}

export interface PeerScoresDeps {
  isStatic(peer: string): boolean;
  ban(peer: string, until: number): Promise<boolean>;
  now?: () => number;
}

export class PeerScores {
  readonly #opts: PeerScoresOptions;
  readonly #deps: PeerScoresDeps;
  readonly #peers = new Map<string, PeerRecord>();

  constructor(opts: PeerScoresOptions, deps: PeerScoresDeps) {
    this.#opts = opts;
    this.#deps = deps;
  }

  #now(): number {
    return (this.#deps.now ?? Date.now)();
  }

  #get(peer: string): PeerRecord {
    let r = this.#peers.get(peer);
    const now = this.#now();
    if (r === undefined) {
      if (this.#peers.size >= MAX_PEERS_TRACKED) this.#peers.delete(this.#peers.keys().next().value as string);
      r = { accepted: 0, ignored: 0, rejected: 0, reqRespOk: 0, reqRespFailed: 0, penalty: 0, updatedAt: now };
      this.#peers.set(peer, r);
    }
    r.penalty *= DECAY_PER_MINUTE ** ((now - r.updatedAt) / 60_000);
    r.updatedAt = now;
    return r;
  }

  knownPeers(): string[] {
    return [...this.#peers.keys()];
  }

  /** The application score (≤ 0). */
  score(peer: string): number {
    return this.#peers.has(peer) ? this.#get(peer).penalty : 0;
  }

  gossipResult(peer: string, result: 'accept' | 'ignore' | 'reject', reason?: string): void {
    const r = this.#get(peer);
    if (result === 'accept') r.accepted++;
    else if (result === 'ignore') r.ignored++;
    else {
      r.rejected++;
      r.lastReject = reason;
      r.penalty += REJECT_PENALTY;
      this.#maybeBan(peer, r, `gossip rejected: ${reason ?? 'invalid message'}`);
    }
  }

  reqRespResult(peer: string, ok: boolean, reason?: string): void {
    const r = this.#get(peer);
    if (ok) r.reqRespOk++;
    else {
      r.reqRespFailed++;
      r.penalty += REQRESP_PENALTY;
      this.#maybeBan(peer, r, `req-resp: ${reason ?? 'failed'}`);
    }
  }

  noteBan(peer: string, why: string): void {
    const r = this.#get(peer);
    r.bannedBecause = why;
    r.bannedAt = this.#now();
  }

  #maybeBan(peer: string, r: PeerRecord, why: string): void {
    if (!this.#opts.banEnabled || r.penalty >= this.#opts.banThreshold || this.#deps.isStatic(peer)) return;
    const score = r.penalty.toFixed(1);
    void this.#deps.ban(peer, this.#now() + this.#opts.banDurationMs).then((banned) => {
      if (banned) this.noteBan(peer, `score ${score} below ${this.#opts.banThreshold} after ${why}`);
    });
  }

  /** op-node's PeerScores shape plus the parts tern's app score is made of. */
  scoresOf(peer: string, gossipsubScore: number, parts?: GossipsubParts): Record<string, unknown> {
    const r = this.#peers.has(peer) ? this.#get(peer) : undefined;
    return {
      gossip: {
        total: gossipsubScore,
        // gossipsub's own counters when it keeps stats for the peer, else what tern's validator saw.
        blocks: {
          timeInMesh: parts?.timeInMesh ?? 0,
          firstMessageDeliveries: parts?.firstMessageDeliveries ?? r?.accepted ?? 0,
          meshMessageDeliveries: parts?.meshMessageDeliveries ?? 0,
          invalidMessageDeliveries: parts?.invalidMessageDeliveries ?? r?.rejected ?? 0,
        },
        IPColocationFactor: 0,
        behavioralPenalty: parts?.behavioralPenalty ?? 0,
        ignored: r?.ignored ?? 0,
        lastRejectReason: r?.lastReject ?? null,
      },
      reqResp: {
        validResponses: r?.reqRespOk ?? 0,
        errorResponses: r?.reqRespFailed ?? 0,
        rejectedPayloads: 0,
      },
      appScore: r?.penalty ?? 0,
      banned: r?.bannedBecause ?? null,
      bannedAt: r?.bannedAt === undefined ? null : new Date(r.bannedAt).toISOString(),
    };
  }
}
