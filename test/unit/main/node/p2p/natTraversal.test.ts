// --p2p.nat: a tern-node host and discv5 behind a fake UPnP gateway on 127.0.0.1 map the libp2p TCP port and the
// discv5 UDP port, and opp2p_self then shows the gateway's external IP in the addresses and in the node record;
// a peer learns the mapped address through identify; --p2p.advertise.ip keeps its address; no gateway, or a loopback listener, costs one log line and nothing else.
import { ENR } from '@chainsafe/enr';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr } from '@multiformats/multiaddr';
import { afterEach, describe, expect, it } from 'vitest';
import { upnpGatewayAt } from '../../../../../src/main/common/natMapping.js';
import { startNodeNat } from '../../../../../src/main/node/p2p/natTraversal.js';
import { captureLogger } from '../../../../helpers/captureLogger.js';
import { type FakeUpnpGateway, fakeUpnpGateway } from '../../../../helpers/natGateway.js';
import { type Opp2pNode, startOpp2pNode } from './opp2pNode.js';

const EXTERNAL_IP = '203.0.113.9';

interface Node extends Opp2pNode {
  self(): { ENR: string; addresses: string[] };
}

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A host listening on every interface (a loopback listener has nothing to map), discv5 and the opp2p API. */
async function startNode(listenIp = '0.0.0.0'): Promise<Node> {
  const node = await startOpp2pNode(listenIp);
  cleanup.push(() => node.stop());
  return { ...node, self: () => node.call('opp2p_self') as { ENR: string; addresses: string[] } };
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
