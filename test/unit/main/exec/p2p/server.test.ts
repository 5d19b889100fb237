// Two P2pServers on loopback: RLPx handshake (the library's), eth/68 STATUS with fork ids (ours), the second
// dialing the first as a bootnode; then headers, bodies and receipts fetched through SyncPeer, and a peer with the
// wrong genesis or a mismatching --eth.requiredblocks entry refused.
import { ENR } from '@chainsafe/enr';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { ServeSource } from '../../../../../src/main/exec/p2p/ethServe.js';
import { createForkFilter, forkIdAt, gatherForks } from '../../../../../src/main/exec/p2p/forkId.js';
import { loadNodeKey } from '../../../../../src/main/exec/p2p/nodeKey.js';
import { type LocalChain, type P2pOptions, P2pServer } from '../../../../../src/main/exec/p2p/server.js';
import type { SyncPeer } from '../../../../../src/main/exec/sync/peer.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';
import { rlpEncode } from '../../../../../src/main/primitives/rlp.js';

const logger = createLogger({ level: (process.env.P2P_LOG as 'debug') ?? 'silent', format: 'json' }).logger;
const config = parseChainConfig({ chainId: 901, homesteadBlock: 0, londonBlock: 0, shanghaiTime: 0, canyonTime: 5 });

/** A toy chain of `n` blocks whose headers are RLP lists carrying their number. */
function toyChain(genesisTag: number, n: number, pool = new Map<string, Uint8Array>()) {
  const received: Uint8Array[] = [];
  const headers: Uint8Array[] = [];
  const hashes: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const h = rlpEncode([genesisTag, i, new Uint8Array(40).fill(i % 256)]);
    headers.push(h);
    hashes.push(keccak256(h));
  }
  const byHash = new Map(hashes.map((h, i) => [Buffer.from(h).toString('hex'), i]));
  const serve: ServeSource = {
    headerNumber: (h) => byHash.get(Buffer.from(h).toString('hex')),
    canonicalHash: (i) => hashes[i],
    headerRlp: (i, h) => (Buffer.from(hashes[i] ?? []).equals(h) ? headers[i] : undefined),
    bodyRlp: (i) => rlpEncode([[], [], [i]]),
    receiptsRlp: (i) => rlpEncode([Uint8Array.of(0x7e, 0xc0 + 1, i)]),
    pooledTx: (h) => pool.get(Buffer.from(h).toString('hex')),
  };
  const schedule = gatherForks(config, 0n);
  const genesis = hashes[0] as Uint8Array;
  const chain: LocalChain = {
    status: () => ({
      version: 68,
      networkId: 901n,
      td: 0n,
      head: hashes[n - 1] as Uint8Array,
      genesis,
      forkId: forkIdAt(schedule, genesis, BigInt(n - 1), 10n),
    }),
    forkId: () => forkIdAt(schedule, genesis, BigInt(n - 1), 10n),
    checkForkId: createForkFilter(schedule, genesis, () => ({ number: BigInt(n - 1), time: 10n })),
    serve,
    addRemoteTx: (raw) => {
      received.push(raw);
    },
    knownTx: (h) => pool.has(Buffer.from(h).toString('hex')),
  };
  return { chain, hashes, headers, received };
}

function options(extra: Partial<P2pOptions> = {}): P2pOptions {
  return {
    port: 0,
    discoveryPort: 0,
    listenHost: '127.0.0.1',
    discv4: false,
    discv5: false,
    bootnodes: [],
    dnsNetworks: [],
    maxPeers: 5,
    maxPendingPeers: 0,
    externalIp: '127.0.0.1',
    netRestrict: [],
    clientId: 'tern-exec/test',
    requiredBlocks: new Map(),
    txGossip: true,
    requestTimeoutMs: 3000,
    ...extra,
  };
}

const servers: P2pServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

async function start(chain: LocalChain, extra: Partial<P2pOptions> = {}): Promise<P2pServer> {
  const s = new P2pServer(options(extra), loadNodeKey({}), chain, undefined, logger);
  servers.push(s);
  await s.start();
  return s;
}

function firstPeer(s: P2pServer, ms = 8000): Promise<SyncPeer> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('no peer')), ms);
    const existing = s.peers()[0];
    if (existing) {
      clearTimeout(t);
      resolve(existing);
      return;
    }
    s.onPeer((p) => {
      clearTimeout(t);
      resolve(p);
    });
  });
}

describe('P2pServer', () => {
  it('connects to a bootnode, agrees on STATUS and serves headers, bodies and receipts', async () => {
    const a = toyChain(1, 50);
    const b = toyChain(1, 1);
    const first = await start(a.chain);
    const second = await start(b.chain, { bootnodes: [first.enode()] });
    const peer = await firstPeer(second);
    expect(peer.head().hash).toEqual(a.hashes[49]);
    await firstPeer(first);
    expect(first.peerCount()).toBe(1);
    expect(second.peersInfo()[0]?.caps).toContain('eth/68');

    const fwd = await peer.getBlockHeaders({ origin: 10n, amount: 5, skip: 2, reverse: false });
    expect(fwd.map((h) => keccak256(h))).toEqual([10, 13, 16, 19, 22].map((i) => a.hashes[i]));
    const back = await peer.getBlockHeaders({ origin: a.hashes[5] as Uint8Array, amount: 10, skip: 0, reverse: true });
    expect(back).toEqual([5, 4, 3, 2, 1, 0].map((i) => a.headers[i]));
    const bodies = await peer.getBlockBodies([
      a.hashes[3] as Uint8Array,
      new Uint8Array(32),
      a.hashes[4] as Uint8Array,
    ]);
    expect(bodies).toEqual([rlpEncode([[], [], [3]]), rlpEncode([[], [], [4]])]);
    const receipts = await peer.getReceipts([a.hashes[7] as Uint8Array]);
    expect(receipts).toEqual([[Uint8Array.of(0x7e, 0xc1, 7)]]);
  });

  it('refuses a peer with another genesis', async () => {
    const first = await start(toyChain(1, 3).chain);
    const second = await start(toyChain(2, 3).chain, { bootnodes: [first.enode()] });
    await expect(firstPeer(second, 2500)).rejects.toThrow('no peer');
    expect(first.peerCount()).toBe(0);
  });

  it('drops a peer whose block differs from --eth.requiredblocks', async () => {
    const a = toyChain(1, 10);
    const first = await start(a.chain);
    const second = await start(toyChain(1, 1).chain, {
      bootnodes: [first.enode()],
      requiredBlocks: new Map([[4n, new Uint8Array(32).fill(9)]]),
    });
    await expect(firstPeer(second, 2500)).rejects.toThrow('no peer');
    const third = await start(toyChain(1, 1).chain, {
      bootnodes: [first.enode()],
      requiredBlocks: new Map([[4n, a.hashes[4] as Uint8Array]]),
    });
    await firstPeer(third);
  });

  it('gossips transactions: announcement, fetch, pool admission; nothing with gossip off', async () => {
    const typed = Uint8Array.of(0x02, 0xc3, 0x01, 0x02, 0x03);
    const hash = keccak256(typed);
    const pool = new Map([[Buffer.from(hash).toString('hex'), typed]]);
    const a = toyChain(1, 3, pool);
    const b = toyChain(1, 3);
    const off = toyChain(1, 3);
    const first = await start(a.chain);
    const second = await start(b.chain, { bootnodes: [first.enode()] });
    const third = await start(off.chain, { bootnodes: [first.enode()], txGossip: false });
    await firstPeer(second);
    await firstPeer(third);
    await new Promise((r) => setTimeout(r, 300));
    first.announceTransactions([2], [typed.length + 1], [hash]);
    for (let i = 0; i < 50 && b.received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(b.received).toEqual([typed]);
    expect(off.received).toEqual([]);
  });
});

describe('P2pServer over discv5 (discv4 off)', () => {
  const idOf = (s: P2pServer) => String(s.nodeInfo().id);
  const peerIds = (s: P2pServer) => s.peersInfo().map((p) => p.id);
  async function until(cond: () => boolean, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('nodes that know only a bootnode find each other and connect; another chain is not dialled', async () => {
    const v5 = { discv5: true, discoveryPort: 0 };
    const boot = await start(toyChain(1, 3).chain, v5);
    expect(String(boot.nodeInfo().enr)).toMatch(/^enr:/);
    const b = await start(toyChain(1, 3).chain, { ...v5, bootnodes: [boot.enode()] });
    const other = await start(toyChain(2, 3).chain, { ...v5, bootnodes: [boot.enode()] });
    const c = await start(toyChain(1, 3).chain, { ...v5, bootnodes: [String(boot.nodeInfo().enr)] });
    // b and c were never told of each other: only discv5 lookups through the bootnode can lead one to the other.
    await until(() => peerIds(b).includes(idOf(c)) || peerIds(c).includes(idOf(b)), 15_000);
    await until(() => peerIds(b).includes(idOf(c)) && peerIds(c).includes(idOf(b)), 5_000);
    await until(() => peerIds(boot).includes(idOf(b)) && peerIds(boot).includes(idOf(c)), 10_000);
    // `other` has a different genesis, so its `eth` fork id fails the filter: nobody dials it, it dials nobody.
    expect(peerIds(other)).toEqual([]);
    for (const s of [boot, b, c]) expect(peerIds(s)).not.toContain(idOf(other));
  }, 30_000);

  it('discv4 and discv5 share one UDP port: peers found with both on', async () => {
    const both = { discv4: true, discv5: true, discoveryPort: 0 };
    const boot = await start(toyChain(1, 3).chain, both);
    const b = await start(toyChain(1, 3).chain, { ...both, bootnodes: [boot.enode()] });
    const c = await start(toyChain(1, 3).chain, { discv5: true, discoveryPort: 0, bootnodes: [boot.enode()] });
    const d = await start(toyChain(1, 3).chain, { discv4: true, discoveryPort: 0, bootnodes: [boot.enode()] });
    await until(() => peerIds(boot).length === 3, 15_000);
    expect(peerIds(boot)).toEqual(expect.arrayContaining([idOf(b), idOf(c), idOf(d)]));
  }, 30_000);
});

describe('P2pServer behind a NAT gateway', () => {
  it('advertises the mapped address and ports in the enode, admin_nodeInfo and the node record', async () => {
    const s = await start(toyChain(1, 3).chain, { discv4: true, discv5: true, externalIp: undefined });
    const before = ENR.decodeTxt(String(s.nodeInfo().enr));
    const local = { tcp: s.tcpPort, udp: s.udpPort };
    s.setNatMapping('203.0.113.9', 40_000, 40_001);
    expect(s.enode()).toMatch(/@203\.0\.113\.9:40000\?discport=40001$/);
    const info = s.nodeInfo();
    expect(info.ip).toBe('203.0.113.9');
    expect(info.ports).toEqual({ discovery: 40_001, listener: 40_000 });
    const enr = ENR.decodeTxt(String(info.enr));
    expect([enr.ip, enr.tcp, enr.udp]).toEqual(['203.0.113.9', 40_000, 40_001]);
    expect(enr.seq).toBeGreaterThan(before.seq);
    // The sockets stay where they are; only what others are told changes.
    expect({ tcp: s.tcpPort, udp: s.udpPort }).toEqual(local);
    expect(String(info.listenAddr)).toBe(`127.0.0.1:${local.tcp}`);
  });
});

describe('P2pServer discovery port under junk', () => {
  it('survives random and truncated datagrams on the shared UDP port (discv5 only, and with discv4)', async () => {
    const { createSocket } = await import('node:dgram');
    const { randomBytes } = await import('node:crypto');
    for (const extra of [{ discv5: true }, { discv4: true, discv5: true }]) {
      const node = await start(toyChain(1, 3).chain, { ...extra, discoveryPort: 0 });
      const sock = createSocket('udp4');
      const junk = [Buffer.alloc(0), Buffer.alloc(1), randomBytes(63), randomBytes(98), randomBytes(1280)];
      // A discv4-shaped packet (valid hash prefix) with a garbage body.
      const body = randomBytes(120);
      junk.push(Buffer.concat([Buffer.from(keccak256(body)), body]));
      for (const j of junk) await new Promise((r) => sock.send(j, node.udpPort, '127.0.0.1', r));
      sock.close();
      await new Promise((r) => setTimeout(r, 200));
      const peer = await start(toyChain(1, 3).chain, { ...extra, discoveryPort: 0, bootnodes: [node.enode()] });
      await firstPeer(peer);
      expect(node.listening).toBe(true);
    }
  }, 30_000);
});

describe('P2pServer peer limits', () => {
  const idOf = (s: P2pServer) => String(s.nodeInfo().id);
  async function until(cond: () => boolean, ms: number): Promise<void> {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('reports inbound connections, and lets a trusted peer in beyond --maxpeers while refusing others', async () => {
    const hub = await start(toyChain(1, 3).chain, { maxPeers: 1 });
    const first = await start(toyChain(1, 3).chain, { bootnodes: [hub.enode()] });
    await until(() => hub.peerCount() === 1 && first.peerCount() === 1, 8000);
    expect(hub.peersInfo()[0]?.network).toMatchObject({ inbound: true, trusted: false });
    expect(first.peersInfo()[0]?.network).toMatchObject({ inbound: false });

    // Trusting a peer makes room for it in the transport, but not for anybody else.
    const friend = await start(toyChain(1, 3).chain);
    hub.addTrustedPeer(friend.enode());
    const stranger = await start(toyChain(1, 3).chain, { bootnodes: [hub.enode()] });
    await new Promise((r) => setTimeout(r, 1500));
    expect(hub.peersInfo().map((p) => p.id)).toEqual([idOf(first)]);
    friend.addPeer(hub.enode());
    await until(() => hub.peersInfo().some((p) => p.id === idOf(friend)), 8000);
    expect(hub.peersInfo().find((p) => p.id === idOf(friend))?.network).toMatchObject({ inbound: true, trusted: true });
    expect(hub.peersInfo().map((p) => p.id)).not.toContain(idOf(stranger));
    expect(stranger.peerCount()).toBe(0);
  }, 30_000);
});
