// opp2p_discoveryTable returns the discv5 table as `enr:` records, opp2p_self carries the node's own record and
// opp2p_peerStats counts the table (op-node's shapes).
import { randomBytes } from 'node:crypto';
import { ENR } from '@chainsafe/enr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { BlockValidator } from '../../../../../src/main/node/p2p/blockValidator.js';
import { Discovery } from '../../../../../src/main/node/p2p/discovery.js';
import { BlockGossip } from '../../../../../src/main/node/p2p/gossip.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import { PeerScores } from '../../../../../src/main/node/p2p/peerScores.js';
import { registerOpp2pApi } from '../../../../../src/main/node/p2p/rpc.js';
import { CFG, KEY_ADDRESS } from '../../../../helpers/p2pBlocks.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

describe('opp2p discovery methods', () => {
  let host: P2PHost;
  let discovery: Discovery;
  let other: Discovery;
  const registry = new RpcRegistry();
  const call = (method: string, params: unknown[] = []) =>
    (registry.lookupMethod(method) as (p: unknown[], ctx: never) => unknown)(params, {} as never);

  beforeAll(async () => {
    const key = randomBytes(32);
    host = await P2PHost.create(
      { privateKey: key, listenIp: '127.0.0.1', listenTcp: 0, staticPeers: [], netrestrict: [], peersHi: 30 },
      { logger },
    );
    await host.start();
    const tcp = host.tcpPort() as number;
    const disc = (privateKey: Uint8Array, port: number, bootnodes: string[]) =>
      Discovery.create(
        {
          privateKey,
          chainId: CFG.l2ChainId,
          listenIp: '127.0.0.1',
          listenUdp: port,
          advertiseUdp: 0,
          advertiseTcp: port,
          bootnodes,
        },
        { logger, onPeer: () => undefined, wantsPeers: () => false },
      );
    discovery = disc(key, tcp, []);
    await discovery.start();
    other = disc(randomBytes(32), tcp + 1, [discovery.enr]);
    await other.start();
    const scores = new PeerScores(
      { banEnabled: true, banThreshold: -100, banDurationMs: 1000 },
      { isStatic: () => false, ban: async () => true },
    );
    const validator = new BlockValidator(CFG, { timestampThresholdMs: 60_000 }, { signer: () => KEY_ADDRESS });
    const gossip = new BlockGossip(CFG, host.node, validator, { onBlock: () => undefined }, { logger });
    registerOpp2pApi(registry, {
      config: CFG,
      host,
      gossip,
      scores,
      banDurationMs: 1000,
      discoveryTable: () => discovery.table().map((e) => e.encodeTxt()),
      localEnr: () => discovery.enr,
    });
  });

  afterAll(async () => {
    await other.stop();
    await discovery.stop();
    await host.stop();
  });

  it('lists the table, the own record and the table size', async () => {
    const end = Date.now() + 10_000;
    while ((call('opp2p_discoveryTable') as string[]).length === 0 && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const table = call('opp2p_discoveryTable') as string[];
    expect(table.length).toBe(1);
    expect(ENR.decodeTxt(table[0] as string).nodeId).toBe(other.nodeId);
    const self = call('opp2p_self') as { ENR: string; peerID: string };
    expect(self.ENR).toBe(discovery.enr);
    expect(self.peerID).toBe(host.peerId);
    expect((call('opp2p_peerStats') as { table: number }).table).toBe(1);
  });
});
