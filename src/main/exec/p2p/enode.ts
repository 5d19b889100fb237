// enode URLs (devp2p's node URL format): enode://<128 hex node id>@<ip>:<tcp port>[?discport=<udp port>].
import { isIP } from 'node:net';

export interface EnodeAddress {
  /** 64-byte node id. */
  id: Uint8Array;
  /** Host as written (IP or name). */
  host: string;
  tcpPort: number;
  udpPort: number;
}

/** Parses an enode URL; throws an Error naming the problem. */
export function parseEnode(url: string): EnodeAddress {
  const m = /^enode:\/\/([0-9a-fA-F]{128})@(\[[0-9a-fA-F:.]+\]|[^:?/[\]]+):(\d{1,5})(?:\?discport=(\d{1,5}))?$/.exec(
    url.trim(),
  );
  if (m === null) throw new Error(`"${url}" is not an enode://<node id>@<host>:<port> URL`);
  const tcpPort = Number(m[3]);
  const udpPort = m[4] === undefined ? tcpPort : Number(m[4]);
  if (tcpPort > 65535 || udpPort > 65535) throw new Error(`"${url}" has a port out of range`);
  const host = (m[2] as string).replace(/^\[|\]$/g, '');
  return { id: Uint8Array.from(Buffer.from(m[1] as string, 'hex')), host, tcpPort, udpPort };
}

/** geth's enode form: the discovery port is given only when it differs from the TCP port. */
export function formatEnode(id: Uint8Array, ip: string, tcpPort: number, udpPort: number): string {
  const host = isIP(ip) === 6 ? `[${ip}]` : ip;
  const disc = udpPort === tcpPort ? '' : `?discport=${udpPort}`;
  return `enode://${Buffer.from(id).toString('hex')}@${host}:${tcpPort}${disc}`;
}
