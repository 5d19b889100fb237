// p2p_bandwidth_bytes_total with real values: two hosts on loopback exchange a ~100 KB gossip block; the byte
// counters the host's libp2p metrics component keeps grow by at least the message on each side (out on the
// sender, in on the receiver), and op-node's gauge shows them under direction="in"/"out".
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { OP_NODE_NAMESPACE, OpNodeMetrics } from '../../../../../src/main/common/metrics/opNode.js';
import { MetricsRegistry } from '../../../../../src/main/common/metrics/registry.js';
import { BlockValidator } from '../../../../../src/main/node/p2p/blockValidator.js';
import { BlockGossip, type GossipBlock } from '../../../../../src/main/node/p2p/gossip.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import { blocksTopic } from '../../../../../src/main/node/p2p/topics.js';
import { LocalSigner } from '../../../../../src/main/node/signer/local.js';
import { signGossipBlock } from '../../../../../src/main/node/signer/setup.js';
import { CFG, KEY, KEY_ADDRESS, ROOT, validPayload } from '../../../../helpers/p2pBlocks.js';
import { waitUntil } from '../../../../helpers/waitUntil.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

async function node(received: GossipBlock[]): Promise<{ host: P2PHost; gossip: BlockGossip }> {
  const host = await P2PHost.create(
    { privateKey: randomBytes(32), listenIp: '127.0.0.1', listenTcp: 0, staticPeers: [], netrestrict: [], peersHi: 30 },
    { logger },
  );
  const validator = new BlockValidator(CFG, { timestampThresholdMs: 60_000 }, { signer: () => KEY_ADDRESS });
  const gossip = new BlockGossip(CFG, host.node, validator, { onBlock: (b) => received.push(b) }, { logger });
  gossip.attach();
  await host.start();
  gossip.subscribe();
  return { host, gossip };
}

const until = (what: string, fn: () => boolean, ms = 15_000) => waitUntil(fn, { what, timeoutMs: ms, everyMs: 50 });

describe('P2P bandwidth counters', () => {
  const hosts: P2PHost[] = [];
  afterAll(async () => {
    for (const h of hosts) await h.stop();
  });

  it('count the bytes of a gossip exchange on both sides', async () => {
    const received: GossipBlock[] = [];
    const a = await node([]);
    const b = await node(received);
    hosts.push(a.host, b.host);
    expect(a.host.bandwidth.totalOut).toBe(0);
    expect(b.host.bandwidth.totalIn).toBe(0);
    await b.host.node.dial(a.host.node.getMultiaddrs()[0] as never);
    const topic = blocksTopic(CFG.l2ChainId, 4);
    await until('mesh', () => a.host.node.services.pubsub.getSubscribers(topic).length > 0);

    const beforeOut = a.host.bandwidth.totalOut;
    const beforeIn = b.host.bandwidth.totalIn;
    // The handshake, identify and subscriptions already moved bytes both ways.
    expect(beforeOut).toBeGreaterThan(0);
    expect(beforeIn).toBeGreaterThan(0);

    // Random bytes do not compress: the snappy message stays above 100 KB.
    const p = validPayload({
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      blockNumber: 9n,
      transactions: [randomBytes(100_000)],
    });
    const signed = await signGossipBlock(CFG, new LocalSigner(KEY), p, ROOT);
    a.gossip.publish(4, signed.message);
    await until('the block', () => received.some((r) => r.payload.blockNumber === 9n));

    expect(a.host.bandwidth.totalOut - beforeOut).toBeGreaterThanOrEqual(100_000);
    expect(b.host.bandwidth.totalIn - beforeIn).toBeGreaterThanOrEqual(100_000);
    // Wire bytes: what one side wrote the other read (loopback loses nothing), give or take bytes in flight.
    await new Promise((r) => setTimeout(r, 200));
    expect(Math.abs(a.host.bandwidth.totalOut - b.host.bandwidth.totalIn)).toBeLessThan(1_000);

    const reg = new MetricsRegistry({ namespace: OP_NODE_NAMESPACE, defaultMetrics: false });
    new OpNodeMetrics(reg.factory()).p2pMetrics().setBandwidth(b.host.bandwidth.totalIn, b.host.bandwidth.totalOut);
    const text = await reg.prometheusText();
    expect(text).toContain(`op_node_default_p2p_bandwidth_bytes_total{direction="in"} ${b.host.bandwidth.totalIn}`);
    expect(text).toContain(`op_node_default_p2p_bandwidth_bytes_total{direction="out"} ${b.host.bandwidth.totalOut}`);
  }, 30_000);
});
