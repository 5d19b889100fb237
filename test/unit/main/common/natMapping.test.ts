// NAT port mapping for both programs: the UPnP IGDv2 actions asked of a tiny fake gateway on 127.0.0.1 that
// records its SOAP actions, the NAT-PMP requests (RFC 6886) received by a fake router on a loopback address, the
// background search that ends in one log line when nothing answers, and stop() leaving no mapping and no socket.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type MappedPorts,
  mapPorts,
  potentialPmpGateways,
  startPortMapping,
  upnpGatewayAt,
} from '../../../../src/main/common/natMapping.js';
import { natPlan } from '../../../../src/main/exec/p2p/options.js';
import { captureLogger } from '../../../helpers/captureLogger.js';
import {
  type FakePmpRouter,
  type FakeUpnpGateway,
  fakePmpRouter,
  fakeUpnpGateway,
  loopbackAddress,
} from '../../../helpers/natGateway.js';

const gateways: FakeUpnpGateway[] = [];
const routers: FakePmpRouter[] = [];
afterEach(() => {
  for (const g of gateways.splice(0)) g.close();
  for (const r of routers.splice(0)) r.close();
});

async function upnpGateway() {
  const g = await fakeUpnpGateway();
  gateways.push(g);
  return g;
}

const udpHandles = () => process.getActiveResourcesInfo().filter((r) => r === 'UDPWrap' || r === 'UDPWRAP').length;

/** A closed socket leaves the list of active resources on a later tick. */
async function udpHandlesSettle(expected: number): Promise<number> {
  for (let i = 0; i < 50 && udpHandles() !== expected; i++) await new Promise((r) => setTimeout(r, 20));
  return udpHandles();
}

describe('NAT port mapping (UPnP)', () => {
  it("maps the TCP and UDP ports to the node's address and reads the external IP", async () => {
    const { url, actions } = await upnpGateway();
    const gateway = await upnpGatewayAt(url, 'tern-exec');
    const mapped = await mapPorts(
      gateway,
      '192.168.1.20',
      { tcp: 30303, udp: 30304 },
      { description: 'tern-exec', timeoutMs: 5_000 },
    );
    expect(mapped).toEqual({ externalIp: '203.0.113.9', tcp: 30303, udp: 30304 });
    const adds = actions.filter((a) => a.action === 'AddAnyPortMapping').map((a) => a.body);
    expect(adds).toHaveLength(2);
    expect(adds[0]).toMatch(
      /<NewProtocol>TCP<[\s\S]*<NewInternalPort>30303<[\s\S]*<NewInternalClient>192\.168\.1\.20</,
    );
    expect(adds[0]).toMatch(/<NewPortMappingDescription>tern-exec</);
    expect(adds[1]).toMatch(/<NewProtocol>UDP<[\s\S]*<NewInternalPort>30304</);
    await gateway.stop();
    // Each mapping is deleted by its external port and protocol (WANIPConnection:2 DeletePortMapping).
    const deletes = actions.filter((a) => a.action === 'DeletePortMapping').map((a) => a.body);
    expect(deletes).toHaveLength(2);
    expect(deletes[0]).toMatch(/<NewExternalPort>30303<\/NewExternalPort>\s*<NewProtocol>TCP</);
    expect(deletes[1]).toMatch(/<NewExternalPort>30304<\/NewExternalPort>\s*<NewProtocol>UDP</);
  });

  it('maps in the background, tells the program once, and deletes the mappings on stop', async () => {
    const { url, actions } = await upnpGateway();
    const { logger, lines } = captureLogger();
    const seen: MappedPorts[] = [];
    const mapping = startPortMapping({
      plan: { kind: 'upnp' },
      description: 'tern-node',
      localIp: '192.168.1.20',
      tcpPort: 9222,
      udpPort: 9223,
      logger,
      open: (signal) => upnpGatewayAt(url, 'tern-node', signal),
      onMapped: (m) => seen.push(m),
    });
    expect(await mapping.done).toEqual({ externalIp: '203.0.113.9', tcp: 9222, udp: 9223 });
    expect(seen).toEqual([{ externalIp: '203.0.113.9', tcp: 9222, udp: 9223 }]);
    expect(lines.map((l) => l.msg)).toEqual(['Mapped ports on the NAT gateway']);
    expect(actions.filter((a) => a.action === 'AddAnyPortMapping')[0]?.body).toMatch(
      /<NewPortMappingDescription>tern-node</,
    );
    await mapping.stop();
    const deletes = actions.filter((a) => a.action === 'DeletePortMapping').map((a) => a.body);
    expect(deletes).toHaveLength(2);
    expect(deletes[0]).toMatch(/<NewExternalPort>9222<\/NewExternalPort>\s*<NewProtocol>TCP</);
    expect(deletes[1]).toMatch(/<NewExternalPort>9223<\/NewExternalPort>\s*<NewProtocol>UDP</);
  });
});

describe('NAT port mapping (NAT-PMP)', () => {
  it('asks for the external address, maps TCP and UDP for two hours, and deletes both on stop', async () => {
    const ip = loopbackAddress();
    const router = await fakePmpRouter(ip);
    routers.push(router);
    const requests = router.requests;
    const before = await udpHandlesSettle(1); // the router's own socket
    const { logger, lines } = captureLogger();
    const mapping = startPortMapping({
      plan: { kind: 'pmp', ip },
      description: 'tern-exec',
      localIp: '192.168.1.20',
      tcpPort: 30303,
      udpPort: 30303,
      logger,
      onMapped: () => undefined,
    });
    expect(await mapping.done).toEqual({ externalIp: '198.51.100.7', tcp: 30303, udp: 30303 });
    expect(lines.map((l) => l.msg)).toEqual(['Mapped ports on the NAT gateway']);
    // Opcode 2 maps TCP, 1 UDP; the lifetime is in seconds (RFC 6886 recommends 7200).
    const maps = requests.filter((r) => r.op !== 0);
    expect(maps).toEqual([
      { op: 2, internal: 30303, external: 30303, lifetime: 7200 },
      { op: 1, internal: 30303, external: 30303, lifetime: 7200 },
    ]);
    await mapping.stop();
    // Lifetime 0 deletes a mapping (section 3.4); the client socket is closed.
    expect(requests.filter((r) => r.op !== 0 && r.lifetime === 0).map((r) => r.op)).toEqual([2, 1]);
    expect(await udpHandlesSettle(before)).toBe(before);
  });

  it("refuses a reply for another client's mapping (the library matches replies by opcode only)", async () => {
    const ip = loopbackAddress();
    const router = await fakePmpRouter(ip, '198.51.100.7', (port) => port + 1);
    routers.push(router);
    const { logger, lines } = captureLogger();
    const mapping = startPortMapping({
      plan: { kind: 'pmp', ip },
      description: 'tern-exec',
      localIp: '192.168.1.20',
      tcpPort: 30303,
      udpPort: undefined,
      logger,
      onMapped: () => expect.unreachable('a foreign reply is no mapping'),
    });
    expect(await mapping.done).toBeUndefined();
    expect(lines).toEqual([
      expect.objectContaining({ lvl: 'warn', err: 'NAT-PMP answered for port 30304, not 30303' }),
    ]);
    await mapping.stop();
  });

  it('a router that never answers costs one warning (one debug line for --nat any) and no open socket', async () => {
    const before = await udpHandlesSettle(0);
    for (const quiet of [false, true]) {
      const { logger, lines } = captureLogger();
      const started = Date.now();
      const mapping = startPortMapping({
        plan: { kind: 'pmp', ip: loopbackAddress() },
        description: 'tern-exec',
        localIp: '192.168.1.20',
        tcpPort: 30303,
        udpPort: undefined,
        logger,
        quiet,
        timeoutMs: 300,
        onMapped: () => expect.unreachable('nothing was mapped'),
      });
      expect(await mapping.done).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(lines).toHaveLength(1);
      expect(lines[0]?.lvl).toBe(quiet ? 'debug' : 'warn');
      await mapping.stop();
      expect(await udpHandlesSettle(before)).toBe(before);
    }
  });

  it('stop() ends a search still running at once, silently', async () => {
    const { logger, lines } = captureLogger();
    const mapping = startPortMapping({
      plan: { kind: 'any' },
      description: 'tern-exec',
      localIp: '192.168.1.20',
      tcpPort: 30303,
      udpPort: 30303,
      logger,
      open: (signal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      onMapped: () => expect.unreachable('nothing was mapped'),
    });
    const started = Date.now();
    await mapping.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await mapping.done).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it("guesses the router as the .1 host of each private IPv4 network, as geth's NAT-PMP discovery", () => {
    const iface = (address: string, netmask: string, internal = false) => ({
      address,
      netmask,
      family: 'IPv4' as const,
      mac: '00:00:00:00:00:00',
      internal,
      cidr: null,
    });
    expect(
      potentialPmpGateways({
        lo: [iface('127.0.0.1', '255.0.0.0', true)],
        eth0: [iface('192.168.1.20', '255.255.255.0')],
        eth1: [iface('10.20.30.40', '255.255.0.0')],
        eth2: [iface('172.20.5.6', '255.240.0.0')],
        eth3: [iface('192.0.2.2', '255.255.255.0')],
      }),
    ).toEqual(['192.168.1.1', '10.20.0.1', '172.16.0.1']);
  });
});

describe('--nat', () => {
  it('names the mechanism; any tries both', () => {
    expect(natPlan('upnp').gateway).toEqual({ kind: 'upnp' });
    expect(natPlan('pmp').gateway).toEqual({ kind: 'pmp', ip: undefined });
    expect(natPlan('pmp:192.168.0.1').gateway).toEqual({ kind: 'pmp', ip: '192.168.0.1' });
    expect(natPlan('any').gateway).toEqual({ kind: 'any' });
    expect(natPlan('none').gateway).toBeUndefined();
    expect(natPlan('extip:1.2.3.4')).toMatchObject({ externalIp: '1.2.3.4', gateway: undefined });
  });
});
