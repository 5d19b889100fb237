// --nat upnp and --nat pmp[:<gateway IP>]: port mappings on the home router through @achingbrain/nat-port-mapper
// (libp2p's UPnP IGDv2 and NAT-PMP client), as geth's p2p/nat: the gateway's external IP is advertised and the
// RLPx TCP port and the discovery UDP port are mapped (refreshed by the library, removed on shutdown).
import { networkInterfaces } from 'node:os';
import { type Gateway, pmpNat, upnpNat } from '@achingbrain/nat-port-mapper';

export type GatewayPlan = { kind: 'upnp' } | { kind: 'pmp'; ip: string | undefined };

const DESCRIPTION = 'tern-exec';

/** geth guesses the router as <local network>.1 when --nat pmp names none. */
function guessGatewayIp(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.family === 'IPv4' && !a.internal) return a.address.replace(/\.\d+$/, '.1');
    }
  }
  return undefined;
}

/** The first gateway that answers: UPnP by SSDP discovery, NAT-PMP at the given or guessed router address. */
export async function openGateway(plan: GatewayPlan, timeoutMs = 5_000): Promise<Gateway> {
  if (plan.kind === 'pmp') {
    const ip = plan.ip ?? guessGatewayIp();
    if (ip === undefined) throw new Error('no local IPv4 network to guess the NAT-PMP gateway from');
    return pmpNat(ip, { description: DESCRIPTION });
  }
  const client = upnpNat({ description: DESCRIPTION, autoRefresh: true });
  for await (const gateway of client.findGateways({ signal: AbortSignal.timeout(timeoutMs) })) return gateway;
  throw new Error(`no UPnP internet gateway (IGDv2) answered in ${timeoutMs} ms`);
}

export interface MappedPorts {
  externalIp: string;
  tcp: number | undefined;
  udp: number | undefined;
}

/** The gateway's external IP and mappings of the TCP (RLPx) and UDP (discovery) ports to `localIp`. */
export async function mapPorts(
  gateway: Gateway,
  localIp: string,
  tcpPort: number,
  udpPort: number | undefined,
  timeoutMs = 5_000,
): Promise<MappedPorts> {
  const signal = AbortSignal.timeout(timeoutMs);
  const externalIp = await gateway.externalIp({ signal });
  const tcp = await gateway.map(tcpPort, localIp, { protocol: 'TCP', description: DESCRIPTION, signal });
  const udp =
    udpPort === undefined
      ? undefined
      : await gateway.map(udpPort, localIp, { protocol: 'UDP', description: DESCRIPTION, signal });
  return { externalIp, tcp: tcp.externalPort, udp: udp?.externalPort };
}
