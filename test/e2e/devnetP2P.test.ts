// tern-devnet's rollup nodes on the peer-to-peer network: devnet.json names each node's peer ID and multiaddr, the
// replica's unsafe head follows the sequencer's through block gossip (within one block), opp2p_peers shows the
// peer with its scores, and a replica cut off from the sequencer for a minute (the sequencer blocks loopback through
// opp2p_blockAddr) closes its gap over req-resp once the block is lifted. The batcher is paused (SIGSTOP) meanwhile,
// so derivation cannot close the gap instead and the blocks can only come from the sequencer's req-resp server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetInfo, NodeInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { DevnetChild, pollUntil } from './devnetChild.js';

let devnet: DevnetChild | undefined;
let info: DevnetInfo;
const out = (): string => devnet?.out ?? '';

type Status = { unsafe_l2: { number: number }; safe_l2: { number: number } };
const status = (n: NodeInfo) => rpcCall<Status>(n.nodeRpc as string, 'optimism_syncStatus');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type PeerDump = {
  totalConnected: number;
  peers: Record<string, { peerScores: { reqResp: { validResponses: number }; gossip: Record<string, unknown> } }>;
};

describe('devnet P2P', () => {
  beforeAll(async () => {
    devnet = new DevnetChild('tern-devnet-p2p-', ['--status-interval=5', '--l1-block-time=2', '--block-time=2']);
    info = await devnet.ready(150_000);
  }, 180_000);

  afterAll(async () => devnet?.cleanup());

  it('lists each rollup node with its peer ID and multiaddr', () => {
    for (const n of info.nodes) {
      expect(n.p2p?.peerId).toMatch(/^16Uiu2/);
      expect(n.p2p?.multiaddr).toBe(`/ip4/127.0.0.1/tcp/${n.p2p?.port}/p2p/${n.p2p?.peerId}`);
    }
  });

  it("peers the engines over devp2p: each lists its enode, the sequencer's engine has a peer", async () => {
    for (const n of info.nodes) expect(n.elP2P?.enode).toMatch(/^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
    const [seq] = info.nodes as [NodeInfo];
    const count = await pollUntil('a devp2p peer on the sequencer engine', 30_000, out, async () => {
      const c = await rpcCall<string>(seq.execRpc, 'net_peerCount');
      return c !== undefined && Number(c) > 0 ? c : undefined;
    });
    expect(Number(count)).toBeGreaterThan(0);
  });

  it("keeps the replica's unsafe head within one block of the sequencer's, with the peer and its scores", async () => {
    const [seq, replica] = info.nodes as [NodeInfo, NodeInfo];
    await pollUntil('the replica to follow gossip', 60_000, out, async () => {
      const [s, r] = await Promise.all([status(seq), status(replica)]);
      return s.unsafe_l2.number > 5 && s.unsafe_l2.number - r.unsafe_l2.number <= 1 ? true : undefined;
    });
    let maxLag = 0;
    for (let i = 0; i < 20; i++) {
      const [s, r] = await Promise.all([status(seq), status(replica)]);
      maxLag = Math.max(maxLag, s.unsafe_l2.number - r.unsafe_l2.number);
      await sleep(500);
    }
    expect(maxLag).toBeLessThanOrEqual(1);
    const peers = await rpcCall<PeerDump>(replica.nodeRpc as string, 'opp2p_peers', [true]);
    expect(peers.totalConnected).toBeGreaterThan(0);
    const seen = peers.peers[seq.p2p?.peerId as string];
    expect(seen?.peerScores.gossip).toMatchObject({ blocks: { firstMessageDeliveries: expect.any(Number) } });
  }, 90_000);

  it('a replica cut off for a minute catches up over req-resp once reconnected', async () => {
    const [seq, replica] = info.nodes as [NodeInfo, NodeInfo];
    const batcherPid = info.batcher?.pid;
    expect(batcherPid).toBeDefined();
    process.kill(batcherPid as number, 'SIGSTOP');
    try {
      await rpcCall(seq.nodeRpc as string, 'opp2p_blockAddr', ['127.0.0.1']);
      await sleep(5_000);
      const during = await rpcCall<PeerDump>(replica.nodeRpc as string, 'opp2p_peers', [true]);
      expect(during.totalConnected).toBe(0);
      await sleep(55_000);
      const [sBefore, rBefore] = await Promise.all([status(seq), status(replica)]);
      // Neither gossip nor derivation moved the replica: it is many blocks behind.
      expect(sBefore.unsafe_l2.number - rBefore.unsafe_l2.number).toBeGreaterThan(20);
      await rpcCall(seq.nodeRpc as string, 'opp2p_unblockAddr', ['127.0.0.1']);
      await pollUntil('the replica to catch up', 30_000, out, async () => {
        const [s, r] = await Promise.all([status(seq), status(replica)]);
        return s.unsafe_l2.number - r.unsafe_l2.number <= 1 ? true : undefined;
      });
      const peers = await rpcCall<PeerDump>(replica.nodeRpc as string, 'opp2p_peers', [true]);
      expect(peers.peers[seq.p2p?.peerId as string]?.peerScores.reqResp.validResponses).toBeGreaterThan(20);
    } finally {
      process.kill(batcherPid as number, 'SIGCONT');
    }
  }, 120_000);
});
