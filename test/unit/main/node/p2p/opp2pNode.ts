// A tern-node P2P stack for the opp2p tests: a libp2p host on a free TCP port, discv5 on the same port number over
// UDP, block gossip, and the opp2p API registered on its own registry.
import { randomBytes } from 'node:crypto';
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

export interface Opp2pNode {
  host: P2PHost;
  discovery: Discovery;
  /** The host's TCP port, also discv5's UDP port. */
  tcp: number;
  /** Calls an opp2p method as the RPC server would. */
  call(method: string, params?: unknown[]): unknown;
  /** Stops discv5, then the host. */
  stop(): Promise<void>;
}

/** discv5 on 127.0.0.1:`port` for `privateKey`, advertising `port` for TCP too. */
export function loopbackDiscovery(privateKey: Uint8Array, port: number, bootnodes: string[]): Discovery {
  return Discovery.create(
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
}

/** Starts the stack with its host listening on `listenIp` (discv5 always on loopback). */
export async function startOpp2pNode(listenIp: string): Promise<Opp2pNode> {
  const key = randomBytes(32);
  const host = await P2PHost.create(
    { privateKey: key, listenIp, listenTcp: 0, staticPeers: [], netrestrict: [], peersHi: 30 },
    { logger },
  );
  await host.start();
  const tcp = host.tcpPort() as number;
  const discovery = loopbackDiscovery(key, tcp, []);
  try {
    await discovery.start();
  } catch (err) {
    await host.stop();
    throw err;
  }
  const registry = new RpcRegistry();
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
  return {
    host,
    discovery,
    tcp,
    call: (method, params = []) =>
      (registry.lookupMethod(method) as (p: unknown[], ctx: never) => unknown)(params, {} as never),
    stop: async () => {
      await discovery.stop();
      await host.stop();
    },
  };
}
