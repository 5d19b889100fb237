// Discv5 on loopback: three tern-node hosts that only know one bootnode find each other through it and connect,
// while a node whose record carries another chain's `opstack` entry is in the bootnode's table but never dialled.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { Discovery } from '../../../../../src/main/node/p2p/discovery.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import { PeerManager } from '../../../../../src/main/node/p2p/peerManager.js';
import { waitUntil } from '../../../../helpers/waitUntil.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const CHAIN = 901n;

interface Node {
  host: P2PHost;
  discovery: Discovery;
  peers: PeerManager;
}

async function startNode(chainId: bigint, bootnodes: string[], dbPath?: string): Promise<Node> {
  const privateKey = randomBytes(32);
  const host = await P2PHost.create(
    { privateKey, listenIp: '127.0.0.1', listenTcp: 0, staticPeers: [], netrestrict: [], peersHi: 30 },
    { logger },
  );
  await host.start();
  const tcp = host.tcpPort() as number;
  const peers = new PeerManager({ lo: 20, hi: 30, graceMs: 30_000, tickMs: 200 }, { host, logger, score: () => 0 });
  const discovery = Discovery.create(
    {
      privateKey,
      chainId,
      listenIp: '127.0.0.1',
      listenUdp: tcp,
      advertiseUdp: 0,
      advertiseTcp: tcp,
      bootnodes,
      dbPath,
      fastIntervalMs: 300,
      slowIntervalMs: 300,
    },
    { logger, onPeer: (p) => peers.addCandidate(p.peerId, p.addr), wantsPeers: () => peers.wantsPeers() },
  );
  await discovery.start();
  peers.start();
  return { host, discovery, peers };
}

const until = (what: string, fn: () => boolean, ms = 20_000) => waitUntil(fn, { what, timeoutMs: ms, everyMs: 100 });

describe('discv5 discovery on loopback', () => {
  const nodes: Node[] = [];
  afterAll(async () => {
    for (const n of nodes) {
      n.peers.stop();
      await n.discovery.stop();
      await n.host.stop();
    }
  });

  it('finds and connects peers of its chain through one bootnode, skipping another chain', async () => {
    const dbPath = mkdtempSync(join(tmpdir(), 'tern-discv5-'));
    const boot = await startNode(CHAIN, []);
    nodes.push(boot);
    const other = await startNode(CHAIN + 1n, [boot.discovery.enr]);
    nodes.push(other);
    const a = await startNode(CHAIN, [boot.discovery.enr], dbPath);
    nodes.push(a);
    const b = await startNode(CHAIN, [boot.discovery.enr]);
    nodes.push(b);
    const connected = (n: Node, m: Node) => n.host.connectedPeers().includes(m.host.peerId);

    // a and b learn about each other only through the bootnode's table.
    await until('a and b connected', () => connected(a, b) || connected(b, a));
    await until('a connected to the bootnode', () => connected(a, boot) || connected(boot, a));
    await until('b connected to the bootnode', () => connected(b, boot) || connected(boot, b));
    await until('the wrong-chain node in the bootnode table', () =>
      boot.discovery.table().some((e) => e.nodeId === other.discovery.nodeId),
    );
    // The other chain's node is known to discovery but no node of this chain dials it.
    await new Promise((r) => setTimeout(r, 1000));
    for (const n of [boot, a, b]) expect(connected(n, other)).toBe(false);
    expect(other.host.connectedPeers()).toEqual([]);

    // The table is saved to --p2p.discovery.path when discovery stops.
    await a.discovery.stop();
    const saved = JSON.parse(readFileSync(join(dbPath, 'nodes.json'), 'utf8')) as { nodes: string[] };
    expect(saved.nodes.length).toBeGreaterThan(0);
    expect(saved.nodes.every((t) => t.startsWith('enr:'))).toBe(true);
    a.peers.stop();
    await a.host.stop();
    nodes.splice(nodes.indexOf(a), 1);

    // Restarted with no bootnodes, a node finds its peers again from the records kept in --p2p.discovery.path.
    const again = await startNode(CHAIN, [], dbPath);
    nodes.push(again);
    expect(again.discovery.table().length).toBeGreaterThan(0);
    await until('the restarted node reconnected', () =>
      [boot, b].some((m) => connected(again, m) || connected(m, again)),
    );
  }, 60_000);
});
