// One UDP socket for both discovery protocols, as geth shares --discovery.port between discv4 and discv5
// (p2p/server.go: packets discv4 does not recognise go on to discv5). A discv4 packet starts with
// keccak256(rest of the packet), which a masked discv5 packet never does by chance; everything else is discv5's.
// discv4 (@ethereumjs/devp2p's DPT) reads and writes through a socket stand-in; discv5 (@chainsafe/discv5) through
// a transport service that encodes and decodes its packets on the same socket.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { EventEmitter } from 'node:events';
import type { IPacket } from '@chainsafe/discv5/packet';
import { decodePacket, encodePacket } from '@chainsafe/discv5/packet';
import { getSocketAddressOnENR, multiaddrToObject } from '@chainsafe/discv5/util';
import type { BaseENR } from '@chainsafe/enr';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { keccak256 } from '../../native/keccak.js';

/** discv4: hash(32) ‖ signature(65) ‖ type(1) ‖ data, the hash over everything after it. */
export function isDiscv4Packet(msg: Uint8Array): boolean {
  if (msg.length < 98) return false;
  return Buffer.from(keccak256(msg.subarray(32))).equals(msg.subarray(0, 32));
}

export class SharedUdp {
  readonly socket: Socket;
  private readonly v4 = new EventEmitter();
  private readonly v5 = new Set<(msg: Buffer, rinfo: RemoteInfo) => void>();
  private closed = false;

  constructor() {
    this.socket = createSocket({ type: 'udp4' });
    this.socket.on('message', (msg, rinfo) => {
      if (isDiscv4Packet(msg)) this.v4.emit('message', msg, rinfo);
      else for (const l of this.v5) l(msg, rinfo);
    });
    // A socket error reaches discv4's error handler when there is one; never an unhandled 'error' event.
    this.socket.on('error', (err) => {
      if (this.v4.listenerCount('error') > 0) this.v4.emit('error', err);
    });
  }

  bind(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind(port, host, () => {
        this.socket.off('error', reject);
        resolve(this.socket.address().port);
      });
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.socket.close();
    } catch {
      // never bound
    }
  }

  /** What DPT's createSocket option returns: the shared socket's discv4 half (binding is this class's job). */
  discv4Socket(): Socket {
    const v4 = this.v4;
    const stub = Object.assign(v4, {
      bind: () => stub,
      close: () => stub,
      send: (...args: unknown[]) => {
        if (!this.closed) (this.socket.send as (...a: unknown[]) => void)(...args);
      },
      address: () => this.socket.address(),
    });
    return stub as unknown as Socket;
  }

  /** discv5's transport service over the shared socket (IPv4). */
  discv5Transport(nodeId: string, bindAddr: Multiaddr): SharedUdpTransport {
    return new SharedUdpTransport(this, nodeId, bindAddr);
  }

  onDiscv5(listener: (msg: Buffer, rinfo: RemoteInfo) => void): () => void {
    this.v5.add(listener);
    return () => this.v5.delete(listener);
  }

  send(data: Uint8Array, port: number, host: string): void {
    if (!this.closed) this.socket.send(data, port, host);
  }
}

/** @chainsafe/discv5's ITransportService (as its UDPTransportService, minus owning the socket). */
export class SharedUdpTransport extends EventEmitter {
  readonly bindAddrs: Multiaddr[];
  readonly ipMode = { ip4: true, ip6: false } as const;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly udp: SharedUdp,
    private readonly nodeId: string,
    bindAddr: Multiaddr,
  ) {
    super();
    this.bindAddrs = [bindAddr];
  }

  async start(): Promise<void> {
    this.unsubscribe = this.udp.onDiscv5((data, rinfo) => {
      const src = multiaddr(`/ip4/${rinfo.address}/udp/${rinfo.port}`);
      let packet: IPacket;
      try {
        packet = decodePacket(this.nodeId, data);
      } catch (err) {
        this.emit('decodeError', err, src);
        return;
      }
      this.emit('packet', src, packet);
    });
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  async send(to: Multiaddr, toId: string, packet: IPacket): Promise<void> {
    const addr = multiaddrToObject(to);
    if (addr.family !== 4) throw new Error('discv5 here runs over IPv4 only');
    this.udp.send(encodePacket(toId, packet), addr.port, addr.host);
  }

  getContactableAddr(enr: BaseENR) {
    return getSocketAddressOnENR(enr, this.ipMode);
  }
}
