// --p2p.nat: op-node turns on go-libp2p's NAT manager, which finds a UPnP or NAT-PMP gateway, maps the libp2p TCP
// listener and adds the gateway's external address to the host's addresses. tern-node does that through the shared
// port mapper (common/natMapping.ts), in the background after the host and discv5 start, and also maps the discv5
// UDP port and puts the external IP and mapped ports in the node record (op-node leaves the record to discv5's
// address votes). --p2p.advertise.ip wins over the gateway: the ports are mapped, the advertised address stays.
import { isIPv6 } from 'node:net';
import type { Gateway } from '@achingbrain/nat-port-mapper';
import type { Logger } from '../../common/logger/index.js';
import { lanIpv4, type PortMappingHandle, startPortMapping } from '../../common/natMapping.js';
import type { Discovery } from './discovery.js';
import type { P2PHost } from './host.js';

export interface NodeNatOptions {
  /** --p2p.listen.ip */
  listenIp: string;
  /** The bound libp2p TCP port. */
  tcpPort: number;
  /** The discv5 UDP port; undefined with --p2p.no-discovery. */
  udpPort: number | undefined;
  /** --p2p.advertise.ip, resolved. */
  advertiseIp: string | undefined;
  timeoutMs?: number;
}

export interface NodeNatDeps {
  host: P2PHost;
  discovery: Discovery | undefined;
  logger: Logger;
  /** Tests hand in a fake gateway; otherwise UPnP and NAT-PMP are both tried and the first to answer is used. */
  open?: ((signal: AbortSignal) => Promise<Gateway>) | undefined;
}

/** Starts the mapping in the background; undefined (after one log line) when the listener cannot be mapped. */
export function startNodeNat(opts: NodeNatOptions, deps: NodeNatDeps): PortMappingHandle | undefined {
  const { logger } = deps;
  const unspecified = opts.listenIp === '0.0.0.0' || opts.listenIp === '::';
  const localIp = unspecified ? lanIpv4() : opts.listenIp;
  if (localIp === undefined || isLoopback(localIp) || isIPv6(localIp)) {
    logger.info('--p2p.nat: no LAN IPv4 listen address to map on a gateway; advertising the local address', {
      listenIp: opts.listenIp,
    });
    return undefined;
  }
  return startPortMapping({
    plan: { kind: 'any' },
    description: 'tern-node',
    localIp,
    tcpPort: opts.tcpPort,
    udpPort: opts.udpPort,
    logger,
    timeoutMs: opts.timeoutMs,
    open: deps.open,
    onMapped: (m) => {
      if (opts.advertiseIp !== undefined) {
        logger.info('Ports mapped; the advertised address stays --p2p.advertise.ip', { ip: opts.advertiseIp });
        return;
      }
      deps.host.addNatMapping(localIp, opts.tcpPort, m.externalIp, m.tcp);
      deps.discovery?.setExternalAddress(m.externalIp, m.tcp, m.udp);
    },
  });
}

function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1';
}
