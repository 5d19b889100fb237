// Discv5 peer discovery (op-node p2p/discovery.go): a node record with this node's IP, TCP and UDP ports and the
// `opstack` chain tag, a UDP listener, the bootnodes, random lookups every 5 s while the node wants peers (every
// 20 s otherwise), and every record found that carries this chain's `opstack` entry handed to the peer manager.
// The table is kept across restarts in <--p2p.discovery.path>/nodes.json unless the path is `memory`.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { Discv5 } from '@chainsafe/discv5';
import { ENR, SignableENR } from '@chainsafe/enr';
import { privateKeyFromRaw } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { type Multiaddr, multiaddr } from '@multiformats/multiaddr';
import type { Logger } from '../../common/logger/index.js';
import {
  encodeOpStackEntry,
  isOpStackRecordOf,
  OPSTACK_ENR_KEY,
  parseBootnode,
  peerIdOfRecord,
  tcpAddrOfRecord,
} from './nodeRecord.js';

export interface DiscoveryOptions {
  /** The node's secp256k1 identity key (the same key as the libp2p host's). */
  privateKey: Uint8Array;
  chainId: bigint;
  listenIp: string;
  /** The UDP port to bind (the caller turns --p2p.listen.udp=0 into the TCP port). */
  listenUdp: number;
  /** The IP put in the record; without it a specific listen IP is used, else discv5 learns it from peers. */
  advertiseIp?: string | undefined;
  /** The UDP port put in the record; 0: the bound port. */
  advertiseUdp: number;
  /** The libp2p TCP port put in the record. */
  advertiseTcp: number;
  bootnodes: readonly string[];
  /** A directory for the table, or undefined to keep nothing. */
  dbPath?: string | undefined;
  /** Lookup intervals (op-node's 5 s while short of peers, 20 s otherwise). */
  fastIntervalMs?: number;
  slowIntervalMs?: number;
}

export interface DiscoveredPeer {
  peerId: PeerId;
  addr: Multiaddr;
  enr: ENR;
}

export interface DiscoveryDeps {
  logger: Logger;
  /** A record of this chain was found (it may be one already known). */
  onPeer(peer: DiscoveredPeer): void;
  /** True while the node is below its peer target: lookups run at the fast interval. */
  wantsPeers(): boolean;
}

const DB_FILE = 'nodes.json';
const SAVE_INTERVAL_MS = 30_000;
const MAX_SAVED = 1024;

export class Discovery {
  readonly #opts: DiscoveryOptions;
  readonly #deps: DiscoveryDeps;
  readonly #log: Logger;
  readonly #dv5: Discv5;
  readonly #enr: SignableENR;
  #timer: NodeJS.Timeout | undefined;
  #saver: NodeJS.Timeout | undefined;
  #stopped = false;
  #lookupRunning = false;

  private constructor(opts: DiscoveryOptions, deps: DiscoveryDeps, dv5: Discv5, enr: SignableENR) {
    this.#opts = opts;
    this.#deps = deps;
    this.#log = deps.logger.child('discv5');
    this.#dv5 = dv5;
    this.#enr = enr;
  }

  static create(opts: DiscoveryOptions, deps: DiscoveryDeps): Discovery {
    const privateKey = privateKeyFromRaw(opts.privateKey);
    const enr = SignableENR.createV4(opts.privateKey, {
      [OPSTACK_ENR_KEY]: encodeOpStackEntry(opts.chainId),
    });
    const ip = opts.advertiseIp || (isUnspecified(opts.listenIp) ? undefined : opts.listenIp);
    if (ip !== undefined) {
      if (isIPv6(ip)) enr.ip6 = ip;
      else enr.ip = ip;
    }
    if (isIPv6(ip ?? opts.listenIp)) {
      enr.tcp6 = opts.advertiseTcp;
      enr.udp6 = opts.advertiseUdp || opts.listenUdp;
    } else {
      enr.tcp = opts.advertiseTcp;
      enr.udp = opts.advertiseUdp || opts.listenUdp;
    }
    const proto = isIPv6(opts.listenIp) ? 'ip6' : 'ip4';
    const bind = multiaddr(`/${proto}/${opts.listenIp}/udp/${opts.listenUdp}`);
    const dv5 = Discv5.create({
      enr,
      privateKey,
      bindAddrs: proto === 'ip6' ? { ip6: bind } : { ip4: bind },
      // An advertised IP is the operator's word: votes from peers must not replace it.
      config: { enrUpdate: !opts.advertiseIp },
    });
    return new Discovery(opts, deps, dv5, enr);
  }

  /** This node's record, `enr:…`. */
  get enr(): string {
    return this.#enr.encodeTxt();
  }

  /**
   * A NAT gateway's external address and mapped ports (--p2p.nat) go into the record; its sequence number goes up
   * and peers fetch the new one.
   */
  setExternalAddress(ip: string, tcpPort: number, udpPort: number | undefined): void {
    const enr = this.#enr;
    if (isIPv6(ip)) {
      if (enr.ip6 !== ip) enr.ip6 = ip;
      if (enr.tcp6 !== tcpPort) enr.tcp6 = tcpPort;
      if (udpPort !== undefined && enr.udp6 !== udpPort) enr.udp6 = udpPort;
      return;
    }
    if (enr.ip !== ip) enr.ip = ip;
    if (enr.tcp !== tcpPort) enr.tcp = tcpPort;
    if (udpPort !== undefined && enr.udp !== udpPort) enr.udp = udpPort;
  }

  get nodeId(): string {
    return this.#enr.nodeId;
  }

  /** The records in the routing table. */
  table(): ENR[] {
    return this.#dv5.kadValues();
  }

  async start(): Promise<void> {
    const known = [...this.#loadDb()];
    for (const text of this.#opts.bootnodes) {
      try {
        known.push(await parseBootnode(text));
      } catch (err) {
        this.#log.warn('Bootnode skipped', { bootnode: text, err: (err as Error).message });
      }
    }
    this.#dv5.on('discovered', (enr) => this.#consider(enr));
    this.#dv5.on('enrAdded', (enr) => this.#consider(enr));
    await this.#dv5.start();
    for (const enr of known) {
      try {
        this.#dv5.addEnr(enr);
      } catch (err) {
        this.#log.debug('Record not added to the table', { err: (err as Error).message });
      }
    }
    this.#log.info('Discv5 started', { enr: this.enr, nodeId: this.nodeId, known: known.length });
    for (const enr of this.table()) this.#consider(enr);
    this.#schedule(0);
    if (this.#opts.dbPath !== undefined) {
      this.#saver = setInterval(() => this.#saveDb(), SAVE_INTERVAL_MS);
      this.#saver.unref();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#saver !== undefined) clearInterval(this.#saver);
    this.#saveDb();
    await this.#dv5.stop();
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#lookup(), delayMs);
    this.#timer.unref();
  }

  async #lookup(): Promise<void> {
    if (this.#stopped || this.#lookupRunning) return;
    this.#lookupRunning = true;
    try {
      for (const enr of await this.#dv5.findRandomNode()) this.#consider(enr);
    } catch (err) {
      this.#log.debug('Random lookup failed', { err: (err as Error).message });
    } finally {
      this.#lookupRunning = false;
    }
    const fast = this.#opts.fastIntervalMs ?? 5_000;
    const slow = this.#opts.slowIntervalMs ?? 20_000;
    this.#schedule(this.#deps.wantsPeers() ? fast : slow);
  }

  /** op-node's FilterEnodes, then the libp2p address of the record. */
  #consider(enr: ENR): void {
    if (this.#stopped || enr.nodeId === this.nodeId) return;
    if (!isOpStackRecordOf(enr, this.#opts.chainId)) return;
    const addr = tcpAddrOfRecord(enr);
    if (addr === undefined) return;
    let peerId: PeerId;
    try {
      peerId = peerIdOfRecord(enr);
    } catch {
      return;
    }
    this.#deps.onPeer({ peerId, addr, enr });
  }

  #loadDb(): ENR[] {
    const dir = this.#opts.dbPath;
    if (dir === undefined) return [];
    mkdirSync(dir, { recursive: true });
    let texts: unknown;
    try {
      texts = (JSON.parse(readFileSync(join(dir, DB_FILE), 'utf8')) as { nodes?: unknown }).nodes;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#log.warn('Discovery database unreadable, starting empty', { path: dir, err: (err as Error).message });
      }
      return [];
    }
    if (!Array.isArray(texts)) return [];
    const out: ENR[] = [];
    for (const t of texts) {
      if (typeof t !== 'string') continue;
      try {
        out.push(ENR.decodeTxt(t));
      } catch {
        // A damaged entry is dropped; the rest still load.
      }
    }
    return out;
  }

  #saveDb(): void {
    const dir = this.#opts.dbPath;
    if (dir === undefined) return;
    // Records built from enode:// URLs carry no signature and would not load again: bootnodes are re-added anyway.
    const nodes = this.table()
      .filter((e) => e.signature.length > 0)
      .slice(0, MAX_SAVED)
      .map((e) => e.encodeTxt());
    try {
      const tmp = join(dir, `${DB_FILE}.tmp`);
      writeFileSync(tmp, JSON.stringify({ version: 1, nodes }));
      renameSync(tmp, join(dir, DB_FILE));
    } catch (err) {
      this.#log.warn('Could not save the discovery database', { path: dir, err: (err as Error).message });
    }
  }
}

function isUnspecified(ip: string): boolean {
  return ip === '0.0.0.0' || ip === '::';
}
