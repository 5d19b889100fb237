// op-node's P2P metrics with real values: two hosts on loopback, the gater's dial/accept counts, a served and a
// requested payload_by_number, and the peer-score histogram, read back from the Prometheus text under op-node's
// names (op_node_default_p2p_*).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { OP_NODE_NAMESPACE, OpNodeMetrics } from '../../../../../src/main/common/metrics/opNode.js';
import { MetricsRegistry } from '../../../../../src/main/common/metrics/registry.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import { PayloadServer, RESULT_NOT_FOUND, requestPayload } from '../../../../../src/main/node/p2p/reqResp.js';
import { CFG } from '../../../../helpers/p2pBlocks.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

async function host(metrics: ReturnType<OpNodeMetrics['p2pMetrics']>): Promise<P2PHost> {
  const h = await P2PHost.create(
    { privateKey: randomBytes(32), listenIp: '127.0.0.1', listenTcp: 0, staticPeers: [], netrestrict: [], peersHi: 30 },
    {
      logger,
      onDial: metrics.dial,
      onAccept: metrics.accept,
      onPeerUnban: metrics.peerUnban,
      onIpUnban: metrics.ipUnban,
    },
  );
  await h.start();
  return h;
}

describe("op-node's P2P metrics", () => {
  it('records dials, accepts, req-resp and peer scores under op_node_default_*', async () => {
    const serverReg = new MetricsRegistry({ namespace: OP_NODE_NAMESPACE, defaultMetrics: false });
    const clientReg = new MetricsRegistry({ namespace: OP_NODE_NAMESPACE, defaultMetrics: false });
    const sm = new OpNodeMetrics(serverReg.factory()).p2pMetrics();
    const cm = new OpNodeMetrics(clientReg.factory()).p2pMetrics();
    const a = await host(sm);
    const b = await host(cm);
    try {
      const server = new PayloadServer(
        CFG,
        { unsafeHead: () => 10, payloadByNumber: async () => Promise.reject(new Error('unused')) },
        { logger, onServed: (n, code, s) => sm.payloadByNumber('server', n, code, s) },
      );
      await server.register(a.node);
      await b.node.dial(a.node.getMultiaddrs()[0] as never);
      const r = await requestPayload(b.node, CFG, a.peerId, 1000n);
      expect(r.ok).toBe(false);
      cm.payloadByNumber('client', 1000n, r.ok ? 0 : r.code, 0.01);
      cm.setPeerCount(b.connectedPeers().length);
      cm.observePeerScores({ total: -3, blocksFirstMessage: 2 });
      a.blockAddr('10.1.2.3');
      a.unblockAddr('10.1.2.3');
      a.unblockAddr('10.1.2.3');
      // The server records after it closed the stream.
      await new Promise((r) => setTimeout(r, 200));

      const s = samples(await serverReg.prometheusText());
      expect(s.get('op_node_default_p2p_accepts{allow="true"}')).toBeGreaterThanOrEqual(1);
      const served = `{p2p_role="server",p2p_method="payload_by_number",result_code="${RESULT_NOT_FOUND}"}`;
      expect(s.get(`op_node_default_p2p_req_total${served}`)).toBe(1);
      expect(s.get(`op_node_default_p2p_req_duration_seconds_count${served}`)).toBe(1);
      expect(s.get('op_node_default_p2p_payload_by_number{p2p_role="server"}')).toBe(1000);
      expect(s.get('op_node_default_p2p_ip_unbans')).toBe(1);

      const c = samples(await clientReg.prometheusText());
      expect(c.get('op_node_default_p2p_dials{allow="true"}')).toBeGreaterThanOrEqual(1);
      expect(c.get('op_node_default_p2p_peer_count')).toBe(1);
      expect(
        c.get('op_node_default_p2p_req_total{p2p_role="client",p2p_method="payload_by_number",result_code="1"}'),
      ).toBe(1);
      expect(c.get('op_node_default_peer_scores_count{type="total"}')).toBe(1);
      expect(c.get('op_node_default_peer_scores_bucket{le="-2",type="total"}')).toBe(1);
      expect(c.get('op_node_default_peer_scores_bucket{le="-5",type="total"}')).toBe(0);
    } finally {
      await b.stop();
      await a.stop();
    }
  }, 30_000);
});
