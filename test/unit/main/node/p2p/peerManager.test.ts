// Tides of the peer manager: below --p2p.peers.lo it dials discovered peers; above --p2p.peers.hi it prunes down
// to the low tide, lowest score first, keeping protected/static peers and peers still within --p2p.peers.grace.
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { type ManagedHost, PeerManager } from '../../../../../src/main/node/p2p/peerManager.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

async function ids(n: number): Promise<PeerId[]> {
  return Promise.all(Array.from({ length: n }, async () => peerIdFromPrivateKey(await generateKeyPair('secp256k1'))));
}

class FakeHost implements ManagedHost {
  readonly selfId = 'self';
  readonly connected = new Set<string>();
  readonly dials: string[] = [];
  readonly protectedPeers = new Set<string>();
  failDials = false;
  #onConnect: ((peer: string) => void) | undefined;
  connectedPeers(): string[] {
    return [...this.connected];
  }
  async dial(peer: PeerId): Promise<void> {
    this.dials.push(peer.toString());
    if (this.failDials) throw new Error('refused');
    this.connect(peer.toString());
  }
  async hangUp(peer: string): Promise<void> {
    this.connected.delete(peer);
  }
  isProtected(peer: string): boolean {
    return this.protectedPeers.has(peer);
  }
  isBanned(): boolean {
    return false;
  }
  onConnect(listener: (peer: string) => void): void {
    this.#onConnect = listener;
  }
  connect(peer: string): void {
    this.connected.add(peer);
    this.#onConnect?.(peer);
  }
}

const flush = () => new Promise((r) => setTimeout(r, 0));
const addr = multiaddr('/ip4/127.0.0.1/tcp/9222');

describe('PeerManager', () => {
  it('dials discovered peers up to the low tide only, and backs off after a failed dial', async () => {
    const host = new FakeHost();
    const pm = new PeerManager({ lo: 3, hi: 5, graceMs: 30_000 }, { host, logger, score: () => 0 });
    const found = await ids(6);
    for (const p of found) pm.addCandidate(p, addr);
    await flush();
    expect(host.connected.size).toBe(3);
    expect(pm.wantsPeers()).toBe(false);
    pm.tick();
    await flush();
    expect(host.dials.length).toBe(3);

    const failing = new FakeHost();
    failing.failDials = true;
    let now = 0;
    const pm2 = new PeerManager(
      { lo: 3, hi: 5, graceMs: 0 },
      { host: failing, logger, score: () => 0, now: () => now },
    );
    const [one] = await ids(1);
    pm2.addCandidate(one as PeerId, addr);
    await flush();
    pm2.tick();
    await flush();
    expect(failing.dials.length).toBe(1);
    now += 31_000;
    pm2.tick();
    await flush();
    expect(failing.dials.length).toBe(2);
  });

  it('prunes above the high tide to the low tide, lowest score first, sparing protected and new peers', async () => {
    const host = new FakeHost();
    let now = 0;
    const scores = new Map<string, number>();
    const pm = new PeerManager(
      { lo: 2, hi: 4, graceMs: 30_000 },
      { host, logger, score: (p) => scores.get(p) ?? 0, now: () => now },
    );
    const peers = (await ids(6)).map(String);
    peers.forEach((p, i) => {
      scores.set(p, -10 * i);
    });
    // peers[5] (worst score) is protected; peers[4] connects late and is still in its grace period.
    host.protectedPeers.add(peers[5] as string);
    for (const p of peers.slice(0, 4)) host.connect(p);
    host.connect(peers[5] as string);
    now = 40_000;
    host.connect(peers[4] as string);
    pm.tick();
    await flush();
    // 6 connected, low tide 2: up to 4 go, but only peers[0..3] may (lowest scores first: 3, 2, 1, 0).
    expect([...host.connected].sort()).toEqual([peers[4], peers[5]].sort());

    // At or under the high tide nothing is pruned.
    const calm = new FakeHost();
    const pm2 = new PeerManager({ lo: 2, hi: 4, graceMs: 0 }, { host: calm, logger, score: () => -50 });
    for (const p of peers.slice(0, 4)) calm.connect(p);
    pm2.tick();
    await flush();
    expect(calm.connected.size).toBe(4);
  });
});
