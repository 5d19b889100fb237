// --p2p.nat: a tern-node host and discv5 behind a fake UPnP gateway on 127.0.0.1 map the libp2p TCP port and the
// discv5 UDP port, and opp2p_self then shows the gateway's external IP in the addresses and in the node record;
// a peer learns the mapped address through identify; --p2p.advertise.ip keeps its address; no gateway, or a loopback listener, costs one log line and nothing else.
import { randomBytes } from 'node:crypto';
import { ENR } from '@chainsafe/enr';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { upnpGatewayAt } from '../../../../../src/main/common/natMapping.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { BlockValidator } from '../../../../../src/main/node/p2p/blockValidator.js';
import { Discovery } from '../../../../../src/main/node/p2p/discovery.js';
import { BlockGossip } from '../../../../../src/main/node/p2p/gossip.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import { startNodeNat } from '../../../../../src/main/node/p2p/natTraversal.js';
import { PeerScores } from '../../../../../src/main/node/p2p/peerScores.js';
import { registerOpp2pApi } from '../../../../../src/main/node/p2p/rpc.js';
import { captureLogger } from '../../../../helpers/captureLogger.js';
import { type FakeUpnpGateway, fakeUpnpGateway } from '../../../../helpers/natGateway.js';
import { CFG, KEY_ADDRESS } from '../../../../helpers/p2pBlocks.js';

const EXTERNAL_IP = '203.0.113.9';

interface Node {
  host: P2PHost;
  discovery: Discovery;
  tcp: number;
  self(): { ENR: string; addresses: string[] };
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A host listening on every interface (a loopback listener has nothing to map), discv5 and the opp2p API. */
async function startNode(listenIp = '0.0.0.0'): Promise<Node> {
  const logger = createLogger({ level: 'silent', format: 'json' }).logger;
  const key = randomBytes(32);
  const host = await P2PHost.create(
    { privateKey: key, listenIp, listenTcp: 0, staticPeers: [], netrestrict: [], peersHi: 30 },
    { logger },
  );
  await host.start();
  cleanup.push(() => host.stop());
  const tcp = host.tcpPort() as number;
  const discovery = Discovery.create(
    {
      privateKey: key,
      chainId: CFG.l2ChainId,
      listenIp: '127.0.0.1',
      listenUdp: tcp,
      advertiseUdp: 0,
      advertiseTcp: tcp,
      bootnodes: [],
    },
    { logger, onPeer: () => undefined, wantsPeers: () => false },
  );
  await discovery.start();
  cleanup.push(() => discovery.stop());
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
    discoveryTable: () => [],
    localEnr: () => discovery.enr,
  });
  const self = () =>
    (registry.lookupMethod('opp2p_self') as (p: unknown[], ctx: never) => { ENR: string; addresses: string[] })(
      [],
      {} as never,
    );
  return { host, discovery, tcp, self };
}

async function gateway(): Promise<FakeUpnpGateway> {
  const g = await fakeUpnpGateway(EXTERNAL_IP);
  cleanup.push(() => g.close());
  return g;
}

describe('tern-node --p2p.nat', () => {
  it('maps the TCP and discv5 ports and advertises the external IP in opp2p_self and the ENR', async () => {
    const node = await startNode();
    const fake = await gateway();
    const before = ENR.decodeTxt(node.self().ENR);
    expect(node.self().addresses.some((a) => a.includes(EXTERNAL_IP))).toBe(false);
    const { logger, lines } = captureLogger();
    const mapping = startNodeNat(
      { listenIp: '0.0.0.0', tcpPort: node.tcp, udpPort: node.tcp, advertiseIp: undefined },
      {
        host: node.host,
        discovery: node.discovery,
        logger,
        open: (signal) => upnpGatewayAt(fake.url, 'tern-node', signal),
      },
    );
    expect(mapping).toBeDefined();
    expect(await mapping?.done).toEqual({ externalIp: EXTERNAL_IP, tcp: node.tcp, udp: node.tcp });
    expect(lines.map((l) => l.msg)).toEqual(['Mapped ports on the NAT gateway']);

    const adds = fake.actions.filter((a) => a.action === 'AddAnyPortMapping').map((a) => a.body);
    expect(adds).toHaveLength(2);
    expect(adds[0]).toMatch(new RegExp(`<NewProtocol>TCP<[\\s\\S]*<NewInternalPort>${node.tcp}<`));
    expect(adds[0]).toMatch(/<NewPortMappingDescription>tern-node</);
    expect(adds[1]).toMatch(new RegExp(`<NewProtocol>UDP<[\\s\\S]*<NewInternalPort>${node.tcp}<`));

    const self = node.self();
    expect(self.addresses).toContain(`/ip4/${EXTERNAL_IP}/tcp/${node.tcp}/p2p/${node.host.peerId}`);
    const enr = ENR.decodeTxt(self.ENR);
    expect(enr.ip).toBe(EXTERNAL_IP);
    expect(enr.tcp).toBe(node.tcp);
    expect(enr.udp).toBe(node.tcp);
    expect(enr.seq).toBeGreaterThan(before.seq);

    // A peer learns the mapped address through identify (the self record is re-signed with it).
    const peer = await startNode('127.0.0.1');
    await peer.host.node.dial(multiaddr(`/ip4/127.0.0.1/tcp/${node.tcp}/p2p/${node.host.peerId}`));
    const learned = async () =>
      (await peer.host.node.peerStore.get(peerIdFromString(node.host.peerId))).addresses.map((a) =>
        a.multiaddr.toString(),
      );
    const end = Date.now() + 10_000;
    while (!(await learned()).includes(`/ip4/${EXTERNAL_IP}/tcp/${node.tcp}`) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await learned()).toContain(`/ip4/${EXTERNAL_IP}/tcp/${node.tcp}`);

    await mapping?.stop();
    expect(fake.actions.filter((a) => a.action === 'DeletePortMapping')).toHaveLength(2);
  });

  it('--p2p.advertise.ip wins: the ports are mapped, the advertised address stays', async () => {
    const node = await startNode();
    const fake = await gateway();
    const enrBefore = node.self().ENR;
    const { logger } = captureLogger();
    const mapping = startNodeNat(
      { listenIp: '0.0.0.0', tcpPort: node.tcp, udpPort: node.tcp, advertiseIp: '198.51.100.1' },
      { host: node.host, discovery: node.discovery, logger, open: (s) => upnpGatewayAt(fake.url, 'tern-node', s) },
    );
    await mapping?.done;
    expect(fake.actions.filter((a) => a.action === 'AddAnyPortMapping')).toHaveLength(2);
    expect(node.self().ENR).toBe(enrBefore);
    expect(node.self().addresses.some((a) => a.includes(EXTERNAL_IP))).toBe(false);
    await mapping?.stop();
  });

  it('without a gateway the node runs on and says so in one warning', async () => {
    const node = await startNode();
    const enrBefore = node.self().ENR;
    const { logger, lines } = captureLogger();
    const mapping = startNodeNat(
      { listenIp: '0.0.0.0', tcpPort: node.tcp, udpPort: node.tcp, advertiseIp: undefined, timeoutMs: 200 },
      {
        host: node.host,
        discovery: node.discovery,
        logger,
        // What the search ends with when no router answers: the timeout's abort.
        open: (signal) =>
          new Promise((_, reject) =>
            AbortSignal.any([signal, AbortSignal.timeout(200)]).addEventListener('abort', () =>
              reject(new Error('no UPnP internet gateway (IGDv2) answered in 200 ms')),
            ),
          ),
      },
    );
    expect(await mapping?.done).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ lvl: 'warn', msg: 'NAT traversal failed: advertising the local address' });
    expect(node.self().ENR).toBe(enrBefore);
    await mapping?.stop();
  });

  it('a loopback listener is not mapped: one line, no search', async () => {
    const { logger, lines } = captureLogger();
    let searched = false;
    const node = await startNode('127.0.0.1');
    const mapping = startNodeNat(
      { listenIp: '127.0.0.1', tcpPort: node.tcp, udpPort: node.tcp, advertiseIp: undefined },
      {
        host: node.host,
        discovery: node.discovery,
        logger,
        open: () => {
          searched = true;
          throw new Error('no search expected');
        },
      },
    );
    expect(mapping).toBeUndefined();
    expect(searched).toBe(false);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.lvl).toBe('info');
  });
});
