// Real hosts on loopback: a block bigger than gossipsub's default 4 MiB frame crosses (op-node allows 10 MiB),
// req-resp serves, says "not found" and refuses malformed requests, and a peer that floods invalid blocks is scored
// down and banned while the honest peer stays connected and keeps delivering.
import { randomBytes } from 'node:crypto';
import { peerIdFromString } from '@libp2p/peer-id';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { snappyCompress } from '../../../../../src/main/common/snappy.js';
import type { L2Payload } from '../../../../../src/main/node/engine/interface.js';
import { BlockValidator } from '../../../../../src/main/node/p2p/blockValidator.js';
import { BlockGossip, type GossipBlock } from '../../../../../src/main/node/p2p/gossip.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import { PeerScores } from '../../../../../src/main/node/p2p/peerScores.js';
import {
  PayloadServer,
  RESULT_INVALID_REQUEST,
  RESULT_NOT_FOUND,
  requestPayload,
} from '../../../../../src/main/node/p2p/reqResp.js';
import { blocksTopic } from '../../../../../src/main/node/p2p/topics.js';
import {
  createGossipValidationPool,
  GOSSIP_OFFLOAD_MIN_BYTES,
  pooledBlockCheck,
} from '../../../../../src/main/node/p2p/validationPool.js';
import { CFG, KEY_ADDRESS, ROOT, signedMessage, validPayload } from '../../../../helpers/p2pBlocks.js';
import { waitUntil } from '../../../../helpers/waitUntil.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const pool = createGossipValidationPool();

interface TestNode {
  host: P2PHost;
  gossip: BlockGossip;
  scores: PeerScores;
  received: GossipBlock[];
}

async function node(staticPeers: string[] = []): Promise<TestNode> {
  const host = await P2PHost.create(
    {
      privateKey: randomBytes(32),
      listenIp: '127.0.0.1',
      listenTcp: 0,
      staticPeers,
      netrestrict: [],
      peersHi: 30,
    },
    { logger },
  );
  const scores = new PeerScores(
    { banEnabled: true, banThreshold: -100, banDurationMs: 3_600_000 },
    { isStatic: (p) => host.isStatic(p), ban: (p, until) => host.ban(p, until) },
  );
  // Large blocks validate on the pool, as in tern-node (gossipsub awaits the topic validator meanwhile).
  const validator = new BlockValidator(
    CFG,
    { timestampThresholdMs: 60_000, offload: pooledBlockCheck(pool), offloadMinBytes: GOSSIP_OFFLOAD_MIN_BYTES },
    { signer: () => KEY_ADDRESS },
  );
  const received: GossipBlock[] = [];
  const gossip = new BlockGossip(
    CFG,
    host.node,
    validator,
    {
      onBlock: (b) => received.push(b),
      onValidation: (peer, o) => scores.gossipResult(peer, o.result, o.result === 'accept' ? undefined : o.reason),
    },
    { logger },
  );
  gossip.attach();
  await host.start();
  gossip.subscribe();
  return { host, gossip, scores, received };
}

const until = (what: string, fn: () => boolean, ms = 15_000) => waitUntil(fn, { what, timeoutMs: ms, everyMs: 50 });

const nowS = () => Math.floor(Date.now() / 1000);
const addr = (n: TestNode) => n.host.node.getMultiaddrs()[0]?.toString() as string;

describe('P2P network on loopback', () => {
  let seq: TestNode;
  let replica: TestNode;
  const served = new Map<number, L2Payload>();

  beforeAll(async () => {
    seq = await node();
    replica = await node([addr(seq)]);
    const server = new PayloadServer(
      CFG,
      {
        unsafeHead: () => 100,
        payloadByNumber: async (n) => {
          const p = served.get(n);
          if (p === undefined) {
            const { engineNotFound } = await import('../../../../../src/main/node/engine/interface.js');
            throw engineNotFound(`block ${n}`);
          }
          return p;
        },
      },
      { logger },
    );
    await server.register(seq.host.node);
    // Both meshes formed: each sees the other on the v4 topic.
    const topic = blocksTopic(CFG.l2ChainId, 4);
    await until('mesh', () =>
      [seq, replica].every((n) => n.host.node.services.pubsub.getSubscribers(topic).length > 0),
    );
  }, 30_000);

  afterAll(async () => {
    await replica?.host.stop();
    await seq?.host.stop();
    await pool.close();
  });

  it('gossips a 9 MB block whose compressed message is above 4 MiB', async () => {
    // Random bytes do not compress: the snappy message stays ~9 MB.
    const p = validPayload({ timestamp: BigInt(nowS()), blockNumber: 50n, transactions: [randomBytes(9_000_000)] });
    const { version, data } = await signedMessage(p);
    expect(data.length).toBeGreaterThan(4 * 1024 * 1024);
    const { signGossipBlock } = await import('../../../../../src/main/node/signer/setup.js');
    const { LocalSigner } = await import('../../../../../src/main/node/signer/local.js');
    const signed = await signGossipBlock(
      CFG,
      new LocalSigner('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'),
      p,
      ROOT,
    );
    seq.gossip.publish(version, signed.message);
    await until('the big block', () => replica.received.some((b) => b.payload.blockNumber === 50n), 20_000);
    const got = replica.received.find((b) => b.payload.blockNumber === 50n);
    expect(Buffer.from(got?.payload.blockHash ?? []).equals(Buffer.from(p.blockHash))).toBe(true);
    expect(got?.payload.transactions[0]?.length).toBe(9_000_000);
  }, 30_000);

  it('serves payload_by_number: ok with the payload, not found, invalid request', async () => {
    const p = validPayload({ timestamp: BigInt(nowS()), blockNumber: 42n });
    served.set(42, { ref: undefined as never, payload: p, parentBeaconBlockRoot: ROOT });
    const ok = await requestPayload(replica.host.node, CFG, seq.host.peerId, 42n);
    expect(ok.ok).toBe(true);
    if (!ok.ok) throw new Error('unreachable');
    expect(ok.payload).toEqual(p);
    expect(ok.parentBeaconBlockRoot).toEqual(ROOT);
    const missing = await requestPayload(replica.host.node, CFG, seq.host.peerId, 43n);
    expect(missing).toEqual({ ok: false, code: RESULT_NOT_FOUND });
    const above = await requestPayload(replica.host.node, CFG, seq.host.peerId, 101n);
    expect(above).toEqual({ ok: false, code: RESULT_NOT_FOUND });
    const server = new PayloadServer(
      CFG,
      { unsafeHead: () => 1, payloadByNumber: async () => served.get(42) as L2Payload },
      { logger },
    );
    expect(await server.answer(Uint8Array.of(1, 2, 3))).toEqual(Uint8Array.of(RESULT_INVALID_REQUEST));
  });

  it('bans a peer that floods invalid blocks; the honest peer keeps delivering', async () => {
    const spammer = await node();
    try {
      await spammer.host.node.dial(replica.host.node.getMultiaddrs()[0] as never);
      const topic = blocksTopic(CFG.l2ChainId, 4);
      await until('spammer in the replica mesh', () =>
        replica.host.node.services.pubsub.getSubscribers(topic).some((p) => p.toString() === spammer.host.peerId),
      );
      for (let i = 0; i < 12 && !replica.host.isBanned(spammer.host.peerId); i++) {
        // Valid snappy, garbage inside: each message distinct, so gossipsub does not drop it as seen.
        await spammer.host.node.services.pubsub.publish(topic, snappyCompress(randomBytes(200)));
        await new Promise((r) => setTimeout(r, 100));
      }
      await until('the ban', () => replica.host.isBanned(spammer.host.peerId));
      await until(
        'the spammer disconnected',
        () => replica.host.node.getConnections(peerIdFromString(spammer.host.peerId)).length === 0,
      );
      const why = replica.scores.scoresOf(spammer.host.peerId, 0) as {
        banned: string;
        gossip: { invalidMessageDeliveries?: number };
      };
      expect(why.banned).toMatch(/score -1\d\d/);
      // The sequencer is untouched and still delivers.
      expect(replica.host.isBanned(seq.host.peerId)).toBe(false);
      const p = validPayload({ timestamp: BigInt(nowS()), blockNumber: 60n });
      const { signGossipBlock } = await import('../../../../../src/main/node/signer/setup.js');
      const { LocalSigner } = await import('../../../../../src/main/node/signer/local.js');
      const signed = await signGossipBlock(
        CFG,
        new LocalSigner('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'),
        p,
        ROOT,
      );
      seq.gossip.publish(4, signed.message);
      await until('the next honest block', () => replica.received.some((b) => b.payload.blockNumber === 60n));
      // A banned peer cannot come back: the replica's gater refuses its connection.
      await spammer.host.node.dial(replica.host.node.getMultiaddrs()[0] as never).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 500));
      expect(replica.host.node.getConnections(peerIdFromString(spammer.host.peerId))).toHaveLength(0);
    } finally {
      await spammer.host.stop();
    }
  }, 40_000);
});
