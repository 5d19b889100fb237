// The libp2p host of tern-node (op-node's host.go): TCP, noise, yamux and mplex, identify, ping and gossipsub,
// with the node's secp256k1 identity (so peer IDs look like op-node's 16Uiu2…), a connection gater for
// --p2p.netrestrict and bans, the peerstore on disk unless `memory`, and the static peers of --p2p.static dialled
// at start and re-dialled whenever they drop. Gossip and request-response attach to the host (gossip.ts, reqResp.ts).
import '../../common/polyfills.js';
import { BlockList, isIPv6 } from 'node:net';
import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import { gossipsub } from '@libp2p/gossipsub';
import { identify } from '@libp2p/identify';
import type { Connection, PeerId } from '@libp2p/interface';
import { mplex } from '@libp2p/mplex';
import { noise } from '@libp2p/noise';
import { peerIdFromString } from '@libp2p/peer-id';
import { ping } from '@libp2p/ping';
import { tcp } from '@libp2p/tcp';
import { yamux } from '@libp2p/yamux';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import { FsDatastore } from 'datastore-fs';
import { createLibp2p, type Libp2p } from 'libp2p';
import { UsageError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { BandwidthCounter, bandwidthMetrics } from './bandwidth.js';
import { gossipOptions } from './gossipParams.js';

export interface HostOptions {
  /** The 32-byte secp256k1 identity key (--p2p.priv.path). */
  privateKey: Uint8Array;
  listenIp: string;
  /** 0: any free port. */
  listenTcp: number;
  /** Addresses announced instead of the listen address (--p2p.advertise.ip/.tcp). */
  advertiseIp?: string | undefined;
  advertiseTcp?: number | undefined;
  /** Multiaddrs with /p2p/<id> (--p2p.static). */
  staticPeers: readonly string[];
  /** CIDR masks (--p2p.netrestrict); empty: every network. */
  netrestrict: readonly string[];
  /** --p2p.peers.hi: connections are refused above twice this (the peer manager prunes above it). */
  peersHi: number;
  /** gossipsub peer scoring (scoreParams.ts gossipScoring, from --p2p.scoring). */
  scoring?: Parameters<typeof gossipOptions>[0];
  /** Directory of the persistent peerstore, or undefined for memory only (--p2p.peerstore.path=memory). */
  peerstorePath?: string | undefined;
}

export interface HostDeps {
  logger: Logger;
  /** Each outgoing dial and incoming connection checked by the gater, allowed or not (op-node's p2p_dials/accepts). */
  onDial?: ((allow: boolean) => void) | undefined;
  onAccept?: ((allow: boolean) => void) | undefined;
  /** A peer ban ended (expired or lifted) / an IP was unblocked (op-node's p2p_peer_unbans, p2p_ip_unbans). */
  onPeerUnban?: (() => void) | undefined;
  onIpUnban?: (() => void) | undefined;
}

/** How often lost static peers are dialled again. */
const STATIC_REDIAL_MS = 2_000;

/** The two address-manager calls a NAT port mapping needs (libp2p's own UPnP service makes the same ones). */
interface NatAddresses {
  addPublicAddressMapping(ip: string, port: number, externalIp: string, externalPort: number, protocol: 'tcp'): void;
  confirmObservedAddr(addr: Multiaddr, options: { type: 'ip-mapping'; ttl: number }): void;
}

type Services = {
  identify: ReturnType<ReturnType<typeof identify>>;
  ping: ReturnType<ReturnType<typeof ping>>;
  pubsub: ReturnType<ReturnType<typeof gossipsub>>;
  natAddresses: NatAddresses;
};
export type TernLibp2p = Libp2p<Services>;

/** A mapped address stays announced while the node runs (the router's lease is renewed in the background). */
const NAT_ADDRESS_TTL_MS = 365 * 24 * 3600 * 1000;

function parseNetrestrict(masks: readonly string[]): BlockList | undefined {
  if (masks.length === 0) return undefined;
  const list = new BlockList();
  for (const m of masks) {
    const [net, bits] = m.split('/');
    if (net === undefined || bits === undefined) throw new UsageError(`--p2p.netrestrict: "${m}" is not a CIDR mask`);
    list.addSubnet(net, Number(bits), isIPv6(net) ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** The IP of a /ip4 or /ip6 multiaddr, if it has one. */
function ipOf(ma: Multiaddr): string | undefined {
  const parts = ma.toString().split('/');
  return parts[1] === 'ip4' || parts[1] === 'ip6' ? parts[2] : undefined;
}

export class P2PHost {
  readonly node: TernLibp2p;
  readonly staticPeers: ReadonlyMap<string, Multiaddr>;
  /** Bytes read and written on all connections (op-node's p2p_bandwidth_bytes_total). */
  readonly bandwidth: BandwidthCounter;
  readonly #log: Logger;
  readonly #banned = new Map<string, number>();
  readonly #blockedAddrs = new Set<string>();
  readonly #protected = new Set<string>();
  readonly #blockedSubnets = new Set<string>();
  #subnetList: BlockList | undefined;
  #redial: NodeJS.Timeout | undefined;
  readonly #deps: HostDeps;

  private constructor(
    node: TernLibp2p,
    staticPeers: Map<string, Multiaddr>,
    bandwidth: BandwidthCounter,
    deps: HostDeps,
    log: Logger,
  ) {
    this.node = node;
    this.bandwidth = bandwidth;
    this.staticPeers = staticPeers;
    this.#deps = deps;
    this.#log = log;
  }

  static async create(opts: HostOptions, deps: HostDeps): Promise<P2PHost> {
    const log = deps.logger.child('p2p');
    const allowed = parseNetrestrict(opts.netrestrict);
    const staticPeers = new Map<string, Multiaddr>();
    for (const s of opts.staticPeers) {
      let ma: Multiaddr;
      try {
        ma = multiaddr(s);
      } catch (err) {
        throw new UsageError(`--p2p.static: "${s}" is not a multiaddr: ${(err as Error).message}`);
      }
      const id = ma.getComponents().find((c) => c.name === 'p2p')?.value;
      if (id === undefined) throw new UsageError(`--p2p.static: "${s}" has no /p2p/<peer-id>`);
      staticPeers.set(peerIdFromString(id).toString(), ma);
    }
    // The gater reads the host's ban lists through this late-bound reference.
    let host: P2PHost | undefined;
    const isStatic = (id: string) => staticPeers.has(id);
    const addrDenied = (ma: Multiaddr): boolean => {
      const ip = ipOf(ma);
      if (ip === undefined) return false;
      if (host?.isAddrBlocked(ip)) return true;
      if (host?.inBlockedSubnet(ip)) return true;
      return allowed !== undefined && !allowed.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
    };
    const announce =
      opts.advertiseIp !== undefined && opts.advertiseIp !== ''
        ? [
            `/${isIPv6(opts.advertiseIp) ? 'ip6' : 'ip4'}/${opts.advertiseIp}/tcp/${opts.advertiseTcp || opts.listenTcp}`,
          ]
        : [];
    const ipProto = isIPv6(opts.listenIp) ? 'ip6' : 'ip4';
    const bandwidth = new BandwidthCounter();
    const node = (await createLibp2p({
      privateKey: privateKeyFromRaw(opts.privateKey),
      addresses: { listen: [`/${ipProto}/${opts.listenIp}/tcp/${opts.listenTcp}`], announce },
      transports: [tcp()],
      connectionEncrypters: [noise()],
      streamMuxers: [yamux(), mplex()],
      metrics: bandwidthMetrics(bandwidth),
      ...(opts.peerstorePath === undefined ? {} : { datastore: new FsDatastore(opts.peerstorePath) }),
      // Room above the high tide: the peer manager prunes back to the low tide (op-node's connmgr does the same).
      connectionManager: { maxConnections: Math.max(1, opts.peersHi) * 2 },
      connectionGater: {
        denyDialPeer: (id: PeerId) => !isStatic(id.toString()) && (host?.isBanned(id.toString()) ?? false),
        denyDialMultiaddr: (ma: Multiaddr) => {
          const denied = addrDenied(ma);
          deps.onDial?.(!denied);
          return denied;
        },
        denyInboundConnection: (conn: { remoteAddr: Multiaddr }) => {
          const denied = addrDenied(conn.remoteAddr);
          deps.onAccept?.(!denied);
          return denied;
        },
        denyInboundEncryptedConnection: (id: PeerId) =>
          !isStatic(id.toString()) && (host?.isBanned(id.toString()) ?? false),
      },
      services: {
        identify: identify(),
        ping: ping(),
        pubsub: gossipsub(gossipOptions(opts.scoring)),
        natAddresses: (components: { addressManager: NatAddresses }): NatAddresses => ({
          addPublicAddressMapping: (...args) => components.addressManager.addPublicAddressMapping(...args),
          confirmObservedAddr: (addr, options) => components.addressManager.confirmObservedAddr(addr, options),
        }),
      },
      start: false,
    })) as TernLibp2p;
    host = new P2PHost(node, staticPeers, bandwidth, deps, log);
    return host;
  }

  get peerId(): string {
    return this.node.peerId.toString();
  }

  async start(): Promise<void> {
    await this.node.start();
    this.#log.info('P2P host started', {
      peerId: this.peerId,
      addrs: this.node.getMultiaddrs().map(String),
      staticPeers: this.staticPeers.size,
    });
    this.#dialStatic();
    this.#redial = setInterval(() => this.#dialStatic(), STATIC_REDIAL_MS);
    this.#redial.unref();
  }

  async stop(): Promise<void> {
    if (this.#redial !== undefined) clearInterval(this.#redial);
    await this.node.stop();
  }

  /** Dials each static peer that is not connected (at start, then every few seconds: kept connected). */
  #dialStatic(): void {
    for (const [id, ma] of this.staticPeers) {
      if (this.node.getConnections(peerIdFromString(id)).length > 0) continue;
      this.node
        .dial(ma)
        .catch((err: Error) => this.#log.debug('Static peer dial failed', { peer: id, err: err.message }));
    }
  }

  isStatic(peer: string): boolean {
    return this.staticPeers.has(peer);
  }

  isBanned(peer: string): boolean {
    const until = this.#banned.get(peer);
    if (until === undefined) return false;
    if (until <= Date.now()) {
      this.#banned.delete(peer);
      this.#deps.onPeerUnban?.();
      return false;
    }
    return true;
  }

  /** Bans a peer until `until` (ms) and drops its connections; static peers are never banned. */
  async ban(peer: string, until: number): Promise<boolean> {
    if (this.isStatic(peer) || this.#protected.has(peer)) return false;
    this.#banned.set(peer, until);
    await this.node.hangUp(peerIdFromString(peer)).catch(() => undefined);
    return true;
  }

  unban(peer: string): void {
    if (this.#banned.delete(peer)) this.#deps.onPeerUnban?.();
  }

  bannedPeers(): string[] {
    return [...this.#banned.keys()].filter((p) => this.isBanned(p));
  }

  blockAddr(ip: string): void {
    this.#blockedAddrs.add(ip);
    for (const c of this.node.getConnections()) {
      if (ipOf(c.remoteAddr) === ip) void c.close().catch(() => undefined);
    }
  }

  isAddrBlocked(ip: string): boolean {
    return this.#blockedAddrs.has(ip);
  }

  unblockAddr(ip: string): void {
    if (this.#blockedAddrs.delete(ip)) this.#deps.onIpUnban?.();
  }

  blockedAddrs(): string[] {
    return [...this.#blockedAddrs];
  }

  /** Blocks a CIDR subnet (checked when dialling and accepting); connected peers in it are dropped. */
  blockSubnet(cidr: string): void {
    const list = parseNetrestrict([cidr]);
    this.#blockedSubnets.add(cidr);
    this.#subnetList = parseNetrestrict([...this.#blockedSubnets]);
    for (const c of this.node.getConnections()) {
      const ip = ipOf(c.remoteAddr);
      if (ip !== undefined && list?.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4')) void c.close().catch(() => undefined);
    }
  }

  unblockSubnet(cidr: string): void {
    this.#blockedSubnets.delete(cidr);
    this.#subnetList = parseNetrestrict([...this.#blockedSubnets]);
  }

  blockedSubnets(): string[] {
    return [...this.#blockedSubnets];
  }

  inBlockedSubnet(ip: string): boolean {
    return this.#subnetList?.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4') ?? false;
  }

  protect(peer: string): void {
    this.#protected.add(peer);
  }

  unprotect(peer: string): void {
    this.#protected.delete(peer);
  }

  isProtected(peer: string): boolean {
    return this.#protected.has(peer) || this.isStatic(peer);
  }

  connections(): Connection[] {
    return this.node.getConnections();
  }

  get selfId(): string {
    return this.peerId;
  }

  /** The distinct peers with an open connection. */
  connectedPeers(): string[] {
    return [...new Set(this.node.getConnections().map((c) => c.remotePeer.toString()))];
  }

  async dial(peer: PeerId, addr: Multiaddr): Promise<void> {
    await this.node.dial(addr.encapsulate(`/p2p/${peer.toString()}`));
  }

  async hangUp(peer: string): Promise<void> {
    await this.node.hangUp(peerIdFromString(peer));
  }

  onConnect(listener: (peer: string) => void): void {
    this.node.addEventListener('peer:connect', (e) => listener(e.detail.toString()));
  }

  /**
   * The router forwards `externalIp:externalPort` to `ip:port` (--p2p.nat): the mapped address joins the addresses
   * identify and opp2p_self announce, as go-libp2p's NAT manager adds it for op-node. Announce addresses
   * (--p2p.advertise.ip) still replace all others.
   */
  addNatMapping(ip: string, port: number, externalIp: string, externalPort: number): void {
    const nat = this.node.services.natAddresses;
    nat.addPublicAddressMapping(ip, port, externalIp, externalPort, 'tcp');
    const external = multiaddr(`/${isIPv6(externalIp) ? 'ip6' : 'ip4'}/${externalIp}/tcp/${externalPort}`);
    nat.confirmObservedAddr(external, { type: 'ip-mapping', ttl: NAT_ADDRESS_TTL_MS });
  }

  /** The TCP port libp2p listens on (the bound port when --p2p.listen.tcp is 0). */
  tcpPort(): number | undefined {
    for (const ma of this.node.getMultiaddrs()) {
      const port = ma.getComponents().find((c) => c.name === 'tcp')?.value;
      if (port !== undefined) return Number(port);
    }
    return undefined;
  }
}
