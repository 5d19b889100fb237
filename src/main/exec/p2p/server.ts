// tern-exec's execution-layer network: RLPx on --port (TCP); discv5 and, when asked, discv4 on one UDP socket,
// --discovery.port (./udpMux.ts tells their packets apart). RLPx, the EIP-8 handshake and discv4 are
// @ethereumjs/devp2p's, discv5 is @chainsafe/discv5's (./discv5.ts); eth/68 and snap/1 sessions are tern's own
// (ethSession.ts, snapSession.ts): STATUS with op-geth's fork id, serving, requests with timeouts, gossip. The
// node's peers are offered to the sync side as a PeerSet.
// First: bounds snappy decompression before @ethereumjs/devp2p's peers bind to the module (see ./snappy.ts).
import './snappy.js';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { DPT, type PeerInfo, RLPx } from '@ethereumjs/devp2p';
import type { Logger } from '../../common/logger/index.js';
import { keccak256 } from '../../native/keccak.js';
import { toHex } from '../../primitives/bytes.js';
import type { HeaderRequest, PeerSet, SnapServer, SyncPeer } from '../sync/peer.js';
import { ExecDiscv5 } from './discv5.js';
import { formatEnode, parseEnode } from './enode.js';
import { encodeEnr } from './enr.js';
import type { ServeSource } from './ethServe.js';
import { DISCONNECT, type EthContext, EthSession, type WirePeer } from './ethSession.js';
import { ETH_LENGTH, ETH_VERSION, SNAP_LENGTH, SNAP_VERSION, type Status } from './ethWire.js';
import type { ForkId, ForkIdVerdict } from './forkId.js';
import type { NodeKey } from './nodeKey.js';
import { type SnapContext, SnapSession } from './snapSession.js';
import { SharedUdp } from './udpMux.js';

export interface P2pOptions {
  /** --port: RLPx TCP port (0: any free port). */
  port: number;
  /** --discovery.port: discv4 UDP port (0: any free port). */
  discoveryPort: number;
  /** Listening address (geth listens on all interfaces). */
  listenHost: string;
  /** discv4 on (--discovery.v4 and not --nodiscover). */
  discv4: boolean;
  /** discv5 on (--discovery.v5 and not --nodiscover), on the same UDP port as discv4. */
  discv5: boolean;
  bootnodes: readonly string[];
  /** EIP-1459 trees walked by the discv4 table (--discovery.dns). */
  dnsNetworks: readonly string[];
  maxPeers: number;
  /** --maxpendpeers (0: geth's default of 50). */
  maxPendingPeers: number;
  /** The address advertised in the enode (--nat extip:), undefined for the first local address. */
  externalIp: string | undefined;
  /** --netrestrict CIDRs; empty: no restriction. */
  netRestrict: readonly string[];
  /** The HELLO client id (geth's Name with --identity). */
  clientId: string;
  /** --eth.requiredblocks: block number → hash every peer must agree on. */
  requiredBlocks: ReadonlyMap<bigint, Uint8Array>;
  /** Off with --rollup.disabletxpoolgossip. */
  txGossip: boolean;
  requestTimeoutMs?: number;
}

export interface LocalChain {
  status(): Status;
  forkId(): ForkId;
  checkForkId(id: ForkId): ForkIdVerdict;
  serve: ServeSource;
  addRemoteTx(raw: Uint8Array): void;
  knownTx(hash: Uint8Array): boolean;
}

/** What admin_peers reports of one peer. */
export interface PeerInfoJson {
  enode: string;
  id: string;
  name: string;
  caps: string[];
  network: { localAddress: string; remoteAddress: string; inbound: boolean; trusted: boolean; static: boolean };
  protocols: Record<string, unknown>;
}

interface Connected {
  wire: RlpxPeer;
  eth: EthSession | undefined;
  snap: SnapSession | undefined;
  sync: SyncPeer | undefined;
  inbound: boolean;
}

/** The parts of @ethereumjs/devp2p's Peer used here. */
interface RlpxPeer extends WirePeer {
  getProtocols(): unknown[];
  _socket: { remoteAddress?: string; remotePort?: number; localAddress?: string; localPort?: number };
  _hello: { clientId: string; capabilities: Array<{ name: string; version: number }> } | null;
}

const STATIC_REDIAL_MS = 15_000;
const DEFAULT_MAX_PENDING = 50;
const DISCOVERED_DIAL_JITTER_MS = 1_000;

export class P2pServer implements PeerSet {
  private rlpx: RLPx | undefined;
  private dpt: DPT | undefined;
  private udp: SharedUdp | undefined;
  private discv5: ExecDiscv5 | undefined;
  private readonly connected = new Map<string, Connected>();
  private readonly peerListeners = new Set<(p: SyncPeer) => void>();
  private readonly leftListeners = new Set<(p: SyncPeer) => void>();
  private readonly staticPeers = new Map<string, PeerInfo>();
  private readonly trusted = new Set<string>();
  private readonly blockList: BlockList | undefined;
  private redial: NodeJS.Timeout | undefined;
  private pendingDials = 0;
  /** The discv4 PING `from` endpoint; the DPT keeps this object, so a NAT mapping updates it in place. */
  private discv4Endpoint: { address: string; udpPort: number | null; tcpPort: number | null } | undefined;
  /** The address and ports a NAT gateway mapped for this node (--nat upnp|pmp|any), once it has. */
  private natMapped: { ip: string; tcp: number; udp: number | undefined } | undefined;
  tcpPort = 0;
  udpPort = 0;
  listening = false;

  constructor(
    private readonly opts: P2pOptions,
    private readonly key: NodeKey,
    private readonly chain: LocalChain,
    private readonly snapServer: SnapServer | undefined,
    private readonly logger: Logger,
  ) {
    if (opts.netRestrict.length > 0) {
      this.blockList = new BlockList();
      for (const cidr of opts.netRestrict) {
        const [net, bits] = cidr.split('/');
        const type = isIP(net as string) === 6 ? 'ipv6' : 'ipv4';
        this.blockList.addSubnet(net as string, Number(bits), type);
      }
    }
  }

  /** Binds the listeners and starts discovery and dialing. */
  async start(): Promise<void> {
    const timeout = this.opts.requestTimeoutMs ?? 10_000;
    const ethCtx: EthContext = {
      status: () => this.chain.status(),
      checkForkId: (id) => this.chain.checkForkId(id),
      serve: this.chain.serve,
      txGossip: this.opts.txGossip,
      addRemoteTx: (raw) => this.chain.addRemoteTx(raw),
      knownTx: (h) => this.chain.knownTx(h),
      requestTimeoutMs: timeout,
      handshakeTimeoutMs: 5_000,
      onReady: (s) => this.onEthReady(s),
      onDrop: (s, reason) => this.logger.debug('Dropping peer', { id: s.id.slice(0, 16), reason }),
    };
    const snapCtx: SnapContext = {
      server: this.snapServer,
      requestTimeoutMs: timeout,
      onProtocolError: (wire, reason) => {
        this.logger.debug('Dropping peer', { id: idOf(wire).slice(0, 16), reason });
        wire.disconnect(DISCONNECT.subprotocolError);
      },
    };
    const Eth = class extends EthSession {
      constructor(version: number, peer: WirePeer, send: (code: number, data: Uint8Array) => void) {
        super(ethCtx, version, peer, send);
      }
    };
    const Snap = class extends SnapSession {
      constructor(version: number, peer: WirePeer, send: (code: number, data: Uint8Array) => void) {
        super(snapCtx, version, peer, send);
      }
    };
    if (this.opts.discv4 || this.opts.discv5) this.udp = new SharedUdp();
    const udp = this.udp;
    if (this.opts.discv4 && udp !== undefined) {
      this.discv4Endpoint = { address: this.advertisedIp(), udpPort: this.opts.discoveryPort, tcpPort: this.opts.port };
      this.dpt = new DPT(this.key.privateKey, {
        createSocket: () => udp.discv4Socket(),
        endpoint: this.discv4Endpoint,
        shouldFindNeighbours: true,
        shouldGetDnsPeers: this.opts.dnsNetworks.length > 0,
        dnsNetworks: [...this.opts.dnsNetworks],
        refreshInterval: 30_000,
      });
      this.dpt.events.on('error', (err: Error) => this.logger.debug('Discovery error', { err: err.message }));
    }
    const common = { customCrypto: {} } as unknown as ConstructorParameters<typeof RLPx>[1]['common'];
    this.rlpx = new RLPx(this.key.privateKey, {
      dpt: this.dpt ?? null,
      maxPeers: this.opts.maxPeers,
      capabilities: [
        { name: 'eth', version: ETH_VERSION, length: ETH_LENGTH, constructor: Eth as never },
        { name: 'snap', version: SNAP_VERSION, length: SNAP_LENGTH, constructor: Snap as never },
      ],
      common,
      clientId: new TextEncoder().encode(this.opts.clientId),
      listenPort: this.opts.port,
    });
    this.resizeTransportLimit();
    this.rlpx.events.on('peer:added', (peer) => this.onPeerAdded(peer as unknown as RlpxPeer));
    this.rlpx.events.on('peer:removed', (peer, reason: number) =>
      this.onPeerRemoved(peer as unknown as RlpxPeer, reason),
    );
    this.rlpx.events.on('peer:error', (peer, err: Error) =>
      this.logger.debug('Peer error', { id: idOf(peer as unknown as RlpxPeer).slice(0, 16), err: String(err) }),
    );
    this.rlpx.events.on('error', (err: Error) => this.logger.warn('P2P listener error', { err: err.message }));
    this.tcpPort = await listen(this.rlpx, this.opts.port, this.opts.listenHost);
    if (udp !== undefined) this.udpPort = await udp.bind(this.opts.discoveryPort || this.tcpPort, this.opts.listenHost);
    if (this.opts.discv5 && udp !== undefined) {
      this.discv5 = new ExecDiscv5(
        {
          privateKey: this.key.privateKey,
          ip: this.advertisedIp(),
          tcpPort: this.tcpPort,
          udpPort: this.udpPort,
          bootnodes: this.opts.bootnodes,
          forkId: () => this.chain.forkId(),
          checkForkId: (id) => this.chain.checkForkId(id),
          // A random delay first: two nodes that find each other in the same lookup would otherwise dial at
          // once and both connections be dropped as duplicates.
          onNode: (info) => {
            const t = setTimeout(() => {
              if (this.connected.size < this.opts.maxPeers) this.dial(info);
            }, Math.random() * DISCOVERED_DIAL_JITTER_MS);
            t.unref();
          },
          wantsPeers: () => this.connected.size < this.opts.maxPeers,
          logger: this.logger,
        },
        udp,
      );
      await this.discv5.start();
    }
    this.listening = true;
    for (const url of this.opts.bootnodes) {
      if (url.startsWith('enr:')) continue; // ENR bootnodes are discv5's
      const e = parseEnode(url);
      const info: PeerInfo = { id: e.id, address: e.host, tcpPort: e.tcpPort, udpPort: e.udpPort };
      if (this.dpt !== undefined) void this.dpt.bootstrap(info);
      // Without discv4 the bootnodes are dialed directly (the connection discovery would lead to); discv5 also
      // learns them above and finds the rest of the network through them.
      else this.dial(info);
    }
    this.redial = setInterval(() => this.redialStatic(), STATIC_REDIAL_MS);
    this.redial.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.redial);
    this.listening = false;
    for (const c of this.connected.values()) {
      c.eth?.close();
      c.snap?.close();
    }
    const { rlpx, dpt, udp, discv5 } = this;
    this.rlpx = undefined;
    this.dpt = undefined;
    this.udp = undefined;
    this.discv5 = undefined;
    await discv5?.stop().catch(() => undefined);
    try {
      rlpx?.destroy();
    } catch {
      // never listened
    }
    try {
      dpt?.destroy();
    } catch {
      // never bound
    }
    udp?.close();
  }

  private allowed(address: string | undefined): boolean {
    if (this.blockList === undefined || address === undefined) return true;
    const plain = address.replace(/^::ffff:/, '');
    return this.blockList.check(plain, isIP(plain) === 6 ? 'ipv6' : 'ipv4');
  }

  private dial(info: PeerInfo): void {
    const rlpx = this.rlpx;
    if (rlpx === undefined || info.id === undefined || !this.allowed(info.address)) return;
    if (this.connected.has(toHexId(info.id)) || toHexId(info.id) === toHexId(this.key.id)) return;
    if (this.pendingDials >= (this.opts.maxPendingPeers || DEFAULT_MAX_PENDING)) return;
    this.pendingDials++;
    rlpx
      .connect(info)
      .catch((err: Error) =>
        this.logger.debug('Dial failed', { peer: `${info.address}:${info.tcpPort}`, err: err.message }),
      )
      .finally(() => {
        this.pendingDials--;
      });
  }

  private redialStatic(): void {
    for (const [id, info] of this.staticPeers) if (!this.connected.has(id)) this.dial(info);
  }

  private onPeerAdded(peer: RlpxPeer): void {
    const id = idOf(peer);
    if (!this.allowed(peer._socket.remoteAddress)) {
      peer.disconnect(DISCONNECT.uselessPeer);
      return;
    }
    const protocols = peer.getProtocols();
    const eth = protocols.find((p): p is EthSession => p instanceof EthSession);
    const snap = protocols.find((p): p is SnapSession => p instanceof SnapSession);
    if (eth === undefined) {
      peer.disconnect(DISCONNECT.uselessPeer);
      return;
    }
    // geth: trusted peers may connect beyond --maxpeers; the rest are refused once the untrusted count is full.
    if (!this.trusted.has(id) && this.untrustedCount() >= this.opts.maxPeers) {
      peer.disconnect(DISCONNECT.tooManyPeers);
      return;
    }
    // An inbound connection arrived on the listening port; an outbound one has an ephemeral local port.
    const inbound = peer._socket.localPort === this.tcpPort;
    this.connected.set(id, { wire: peer, eth, snap, sync: undefined, inbound });
    // eth may have finished its handshake before the RLPx layer announced the peer.
    if (eth.remote !== undefined) this.onEthReady(eth);
  }

  private onEthReady(session: EthSession): void {
    const c = this.connected.get(session.id);
    if (c === undefined || c.sync !== undefined) return;
    const sync = this.syncPeer(c, session);
    c.sync = sync;
    void this.checkRequiredBlocks(session).then((ok) => {
      if (!ok || session.closed) return;
      this.logger.info('Peer connected', { id: session.id.slice(0, 16), name: c.wire._hello?.clientId });
      for (const l of this.peerListeners) l(sync);
    });
  }

  /** --eth.requiredblocks: a peer that has the block must have it with that hash (geth's sync challenge). */
  private async checkRequiredBlocks(s: EthSession): Promise<boolean> {
    for (const [number, hash] of this.opts.requiredBlocks) {
      let headers: Uint8Array[];
      try {
        headers = await s.getBlockHeaders({ origin: number, amount: 1, skip: 0, reverse: false });
      } catch {
        s.drop(`required block ${number}: no answer`, DISCONNECT.timeout);
        return false;
      }
      if (headers.length === 0) continue; // not synced that far yet: allowed, as geth
      if (toHex(keccak256(headers[0] as Uint8Array)) !== toHex(hash)) {
        s.drop(`required block ${number} mismatch`, DISCONNECT.uselessPeer);
        return false;
      }
    }
    return true;
  }

  private onPeerRemoved(peer: RlpxPeer, reason: number): void {
    const id = idOf(peer);
    const c = this.connected.get(id);
    if (c === undefined) return;
    this.connected.delete(id);
    c.eth?.close();
    c.snap?.close();
    this.logger.debug('Peer disconnected', { id: id.slice(0, 16), reason });
    if (c.sync !== undefined) for (const l of this.leftListeners) l(c.sync);
  }

  private syncPeer(c: Connected, eth: EthSession): SyncPeer {
    const snap = c.snap;
    return {
      id: eth.id,
      head: () => eth.head,
      getBlockHeaders: (req: HeaderRequest, signal?: AbortSignal) => eth.getBlockHeaders(req, signal),
      getBlockBodies: (hashes, signal) => eth.getBlockBodies(hashes, signal),
      getReceipts: (hashes, signal) => eth.getReceipts(hashes, signal),
      snap: snap !== undefined,
      snapRequest: (code, payload, signal) =>
        snap === undefined
          ? Promise.reject(new Error('peer does not speak snap/1'))
          : snap.request(code, payload, signal),
      penalise: (reason) => eth.drop(`penalised: ${reason}`, DISCONNECT.uselessPeer),
    };
  }

  // ---- PeerSet ----

  peers(): readonly SyncPeer[] {
    const out: SyncPeer[] = [];
    for (const c of this.connected.values()) if (c.sync !== undefined && !c.eth?.closed) out.push(c.sync);
    return out;
  }

  onPeer(listener: (peer: SyncPeer) => void): () => void {
    this.peerListeners.add(listener);
    return () => this.peerListeners.delete(listener);
  }

  onPeerLeft(listener: (peer: SyncPeer) => void): () => void {
    this.leftListeners.add(listener);
    return () => this.leftListeners.delete(listener);
  }

  // ---- transaction gossip ----

  /** Announces new pool transactions to every peer (eth/68 hashes with types and sizes). */
  announceTransactions(types: number[], sizes: number[], hashes: Uint8Array[]): void {
    if (!this.opts.txGossip) return;
    for (const c of this.connected.values()) c.eth?.announce(types, sizes, hashes);
  }

  // ---- admin ----

  peerCount(): number {
    return this.peers().length;
  }

  /**
   * The router mapped the ports (--nat upnp|pmp|any): the enode, the node record and discv4's PING carry the
   * external IP and the mapped ports from now on, as geth's port-mapping loop sets them on its local node.
   */
  setNatMapping(ip: string, tcp: number, udp: number | undefined): void {
    this.natMapped = { ip, tcp, udp };
    if (this.discv4Endpoint !== undefined) {
      this.discv4Endpoint.address = ip;
      this.discv4Endpoint.tcpPort = tcp;
      if (udp !== undefined) this.discv4Endpoint.udpPort = udp;
    }
    this.discv5?.setAddress(ip, tcp, udp ?? this.udpPort);
  }

  advertisedIp(): string {
    if (this.natMapped !== undefined) return this.natMapped.ip;
    if (this.opts.externalIp !== undefined) return this.opts.externalIp;
    if (this.opts.listenHost !== '0.0.0.0' && this.opts.listenHost !== '::') return this.opts.listenHost;
    return firstLocalIp();
  }

  /** The TCP and UDP ports others reach this node on: the router's mapped ones once there are. */
  private advertisedPorts(): { tcp: number; udp: number } {
    const tcp = this.natMapped?.tcp ?? this.tcpPort;
    return { tcp, udp: this.udp !== undefined ? (this.natMapped?.udp ?? this.udpPort) : 0 };
  }

  enode(): string {
    const { tcp, udp } = this.advertisedPorts();
    return formatEnode(this.key.id, this.advertisedIp(), tcp, udp || tcp);
  }

  nodeInfo(): Record<string, unknown> {
    const ip = this.advertisedIp();
    const { tcp, udp } = this.advertisedPorts();
    return {
      id: toHex(keccak256(this.key.id)).slice(2),
      name: this.opts.clientId,
      enode: this.enode(),
      enr:
        this.discv5?.record ??
        encodeEnr(this.key.privateKey, {
          seq: 1n,
          ip,
          tcp,
          udp: udp || undefined,
          forkId: this.chain.forkId(),
        }),
      ip,
      ports: { discovery: udp, listener: tcp },
      listenAddr: `${this.opts.listenHost === '0.0.0.0' ? '[::]' : this.opts.listenHost}:${this.tcpPort}`,
    };
  }

  peersInfo(): PeerInfoJson[] {
    const out: PeerInfoJson[] = [];
    for (const [id, c] of this.connected) {
      const s = c.wire._socket;
      const hello = c.wire._hello;
      out.push({
        enode: formatEnode(
          Buffer.from(id, 'hex'),
          stripV4(s.remoteAddress ?? ''),
          s.remotePort ?? 0,
          s.remotePort ?? 0,
        ),
        id: toHex(keccak256(Buffer.from(id, 'hex'))).slice(2),
        name: hello?.clientId ?? '',
        caps: (hello?.capabilities ?? []).map((x) => `${x.name}/${x.version}`),
        network: {
          localAddress: `${stripV4(s.localAddress ?? '')}:${s.localPort ?? 0}`,
          remoteAddress: `${stripV4(s.remoteAddress ?? '')}:${s.remotePort ?? 0}`,
          inbound: c.inbound,
          trusted: this.trusted.has(id),
          static: this.staticPeers.has(id),
        },
        protocols: {
          eth: c.eth?.remote === undefined ? 'handshake' : { version: c.eth.version, head: toHex(c.eth.head.hash) },
          ...(c.snap !== undefined ? { snap: { version: c.snap.version } } : {}),
        },
      });
    }
    return out;
  }

  /** admin_addPeer: a static peer, dialed now and redialed while disconnected. */
  addPeer(url: string): boolean {
    const e = parseEnode(url);
    const info: PeerInfo = { id: e.id, address: e.host, tcpPort: e.tcpPort, udpPort: e.udpPort };
    this.staticPeers.set(toHexId(e.id), info);
    this.dial(info);
    return true;
  }

  removePeer(url: string): boolean {
    const id = toHexId(parseEnode(url).id);
    this.staticPeers.delete(id);
    this.connected.get(id)?.wire.disconnect(DISCONNECT.requested);
    return true;
  }

  addTrustedPeer(url: string): boolean {
    this.trusted.add(toHexId(parseEnode(url).id));
    this.resizeTransportLimit();
    return true;
  }

  removeTrustedPeer(url: string): boolean {
    this.trusted.delete(toHexId(parseEnode(url).id));
    this.resizeTransportLimit();
    return true;
  }

  private untrustedCount(): number {
    let n = 0;
    for (const id of this.connected.keys()) if (!this.trusted.has(id)) n++;
    return n;
  }

  /**
   * @ethereumjs/devp2p refuses inbound connections past its own peer limit before it knows who is calling, so its
   * limit is raised by the number of trusted peers and --maxpeers is enforced for the others in onPeerAdded.
   */
  private resizeTransportLimit(): void {
    if (this.rlpx !== undefined) {
      (this.rlpx as unknown as { _maxPeers: number })._maxPeers = this.opts.maxPeers + this.trusted.size;
    }
  }
}

function toHexId(id: Uint8Array): string {
  return Buffer.from(id).toString('hex');
}

function idOf(peer: WirePeer): string {
  const id = peer.getId();
  return id === null ? '' : toHexId(id);
}

function stripV4(a: string): string {
  return a.replace(/^::ffff:/, '');
}

function firstLocalIp(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

function listen(rlpx: RLPx, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = (rlpx as unknown as { _server: import('node:net').Server })._server;
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr !== null ? addr.port : port);
    });
    rlpx.listen(port, host);
  });
}
