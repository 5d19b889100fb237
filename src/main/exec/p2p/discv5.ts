// Discovery v5 for tern-exec (geth's --discovery.v5): @chainsafe/discv5 over the discovery port shared with discv4
// (./udpMux.ts); the node's record carries the `eth` entry [[fork hash, fork next]] (geth's
// eth/protocols/eth/discovery.go), kept current as the head crosses forks; random lookups while the node wants
// peers; and every record found whose `eth` fork id passes this chain's EIP-2124 filter handed on for an RLPx dial.
import { isIP } from 'node:net';
import { Discv5 } from '@chainsafe/discv5';
import { ENR, SignableENR } from '@chainsafe/enr';
import type { PeerInfo } from '@ethereumjs/devp2p';
import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import { multiaddr } from '@multiformats/multiaddr';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import type { Logger } from '../../common/logger/index.js';
import { parseEnode } from './enode.js';
import type { ForkId, ForkIdVerdict } from './forkId.js';
import type { SharedUdp } from './udpMux.js';

export interface ExecDiscv5Options {
  privateKey: Uint8Array;
  /** The IP put in the record. */
  ip: string;
  tcpPort: number;
  udpPort: number;
  bootnodes: readonly string[];
  forkId(): ForkId;
  checkForkId(id: ForkId): ForkIdVerdict;
  /** A matching node was found. */
  onNode(info: PeerInfo): void;
  /** True while below --maxpeers: lookups every 5 s, else every 30 s. */
  wantsPeers(): boolean;
  logger: Logger;
  fastIntervalMs?: number;
}

function uintBytes(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  const hex = v.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex');
}

/** The `eth` entry's value as a nested RLP item (@chainsafe/enr RLP-encodes entry values as given). */
export function ethEntry(id: ForkId): Uint8Array {
  return [[id.hash, uintBytes(id.next)]] as unknown as Uint8Array;
}

/** The fork id of a record's `eth` entry (extra list items after it are allowed, as geth's rlp:"tail"). */
export function forkIdOfRecord(enr: ENR): ForkId | undefined {
  const value = enr.kvs.get('eth') as unknown;
  if (!Array.isArray(value) || !Array.isArray(value[0])) return undefined;
  const [hash, next] = value[0] as unknown[];
  if (!(hash instanceof Uint8Array) || hash.length !== 4 || !(next instanceof Uint8Array) || next.length > 8) {
    return undefined;
  }
  if (next.length > 0 && next[0] === 0) return undefined; // non-canonical integer
  return { hash, next: next.length === 0 ? 0n : BigInt(`0x${Buffer.from(next).toString('hex')}`) };
}

/** geth's eth.NewNodeFilter: the record has an `eth` entry and its fork id passes the local filter. */
export function isEthRecordOf(enr: ENR, check: (id: ForkId) => ForkIdVerdict): boolean {
  const id = forkIdOfRecord(enr);
  return id !== undefined && check(id) === 'ok';
}

/** The RLPx dial target of a record: its uncompressed key, IPv4 address and TCP port. */
export function peerInfoOfRecord(enr: ENR): PeerInfo | undefined {
  if (enr.ip === undefined || enr.tcp === undefined || enr.tcp === 0) return undefined;
  let id: Uint8Array;
  try {
    id = secp256k1.Point.fromHex(Buffer.from(enr.publicKey).toString('hex')).toBytes(false).subarray(1);
  } catch {
    return undefined;
  }
  return { id, address: enr.ip, tcpPort: enr.tcp, udpPort: enr.udp ?? null };
}

export class ExecDiscv5 {
  private readonly dv5: Discv5;
  private readonly enr: SignableENR;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running = false;
  private lastFork = '';

  constructor(
    private readonly opts: ExecDiscv5Options,
    udp: SharedUdp,
  ) {
    this.enr = SignableENR.createV4(opts.privateKey, { eth: ethEntry(opts.forkId()) });
    this.lastFork = forkKey(opts.forkId());
    this.enr.ip = opts.ip;
    this.enr.tcp = opts.tcpPort;
    this.enr.udp = opts.udpPort;
    const bindAddr = multiaddr(`/ip4/0.0.0.0/udp/${opts.udpPort}`);
    this.dv5 = Discv5.create({
      enr: this.enr,
      privateKey: privateKeyFromRaw(opts.privateKey),
      bindAddrs: { ip4: bindAddr },
      transport: udp.discv5Transport(this.enr.nodeId, bindAddr),
      // The advertised IP is known (--nat extip: or the listen address): votes from peers must not replace it.
      config: { enrUpdate: false },
    });
  }

  get record(): string {
    return this.enr.encodeTxt();
  }

  /** A NAT gateway's external address and mapped ports (the record's sequence number goes up, peers refetch it). */
  setAddress(ip: string, tcpPort: number, udpPort: number): void {
    if (this.enr.ip !== ip) this.enr.ip = ip;
    if (this.enr.tcp !== tcpPort) this.enr.tcp = tcpPort;
    if (this.enr.udp !== udpPort) this.enr.udp = udpPort;
  }

  async start(): Promise<void> {
    this.dv5.on('discovered', (enr) => this.consider(enr));
    this.dv5.on('enrAdded', (enr) => this.consider(enr));
    await this.dv5.start();
    for (const text of this.opts.bootnodes) {
      try {
        this.dv5.addEnr(text.startsWith('enode://') ? recordOfEnode(text) : text);
      } catch (err) {
        this.opts.logger.warn('Discv5 bootnode skipped', { bootnode: text, err: (err as Error).message });
      }
    }
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.dv5.stop();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.lookup(), ms);
    this.timer.unref();
  }

  private async lookup(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = true;
    const fork = this.opts.forkId();
    if (forkKey(fork) !== this.lastFork) {
      this.lastFork = forkKey(fork);
      this.enr.set('eth', ethEntry(fork));
    }
    try {
      for (const enr of await this.dv5.findRandomNode()) this.consider(enr);
    } catch (err) {
      this.opts.logger.debug('Discv5 lookup failed', { err: (err as Error).message });
    } finally {
      this.running = false;
    }
    this.schedule(this.opts.wantsPeers() ? (this.opts.fastIntervalMs ?? 5_000) : 30_000);
  }

  private consider(enr: ENR): void {
    if (this.stopped || enr.nodeId === this.enr.nodeId) return;
    if (!isEthRecordOf(enr, this.opts.checkForkId)) return;
    const info = peerInfoOfRecord(enr);
    if (info !== undefined) this.opts.onNode(info);
  }
}

function forkKey(id: ForkId): string {
  return `${Buffer.from(id.hash).toString('hex')}:${id.next}`;
}

/**
 * A record for an enode:// bootnode: geth's enode.NewV4 (sequence 0, no signature). discv5 needs only the key and
 * the UDP endpoint to reach the node; the node's own signed record replaces this one on first contact.
 */
function recordOfEnode(url: string): ENR {
  const e = parseEnode(url);
  if (isIP(e.host) !== 4) throw new Error('discv5 bootnodes need an IPv4 address');
  const port = (p: number) => Uint8Array.of(p >> 8, p & 0xff);
  const kvs = new Map<string, Uint8Array>([
    ['id', new TextEncoder().encode('v4')],
    ['secp256k1', secp256k1.Point.fromHex(`04${Buffer.from(e.id).toString('hex')}`).toBytes(true)],
    ['ip', Uint8Array.from(e.host.split('.').map(Number))],
    ['udp', port(e.udpPort)],
    ['tcp', port(e.tcpPort)],
  ]);
  return new ENR(kvs, 0n, new Uint8Array(0));
}
