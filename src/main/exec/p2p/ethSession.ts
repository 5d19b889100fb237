// One peer's eth/68 session over an RLPx connection: the STATUS handshake (network id, genesis, fork id checked
// per EIP-2124), serving its requests from the chain and pool, our requests to it with ids, timeouts and a bound
// on how many are in flight, and transaction gossip. Anything malformed or unrequested drops the peer.

import { toHex } from '../../primitives/bytes.js';
import type { HeaderRequest } from '../sync/peer.js';
import { type ServeSource, serveBodies, serveHeaders, servePooledTransactions, serveReceipts } from './ethServe.js';
import {
  decodeGetBlockHeaders,
  decodeHashesRequest,
  decodePooledHashes,
  decodeRawReply,
  decodeReceiptsReply,
  decodeStatus,
  decodeTransactions,
  EthCode,
  encodeGetBlockHeaders,
  encodeHashesRequest,
  encodePooledHashes,
  encodeReply,
  encodeStatus,
  LIMITS,
  PeerProtocolError,
  requireListItems,
  type Status,
  transactionsFromItems,
} from './ethWire.js';
import type { ForkIdVerdict } from './forkId.js';
import { snappy } from './snappy.js';

/** What the RLPx connection gives a sub-protocol (the parts of @ethereumjs/devp2p's Peer used here). */
export interface WirePeer {
  getId(): Uint8Array | null;
  getHelloMessage(): { protocolVersion: number } | null;
  disconnect(reason: number): void;
}

export type Send = (code: number, data: Uint8Array) => void;

/** What every session of a node shares: the local chain view and the policies. */
export interface EthContext {
  status(): Status;
  checkForkId(id: Status['forkId']): ForkIdVerdict;
  serve: ServeSource;
  /** Incoming gossip off: --rollup.disabletxpoolgossip (op-geth then neither takes nor announces transactions). */
  txGossip: boolean;
  /** Pool admission of a transaction a peer sent (network form). */
  addRemoteTx(raw: Uint8Array): void;
  /** Whether the pool knows a transaction hash (to fetch only new ones). */
  knownTx(hash: Uint8Array): boolean;
  requestTimeoutMs: number;
  handshakeTimeoutMs: number;
  onReady(session: EthSession): void;
  onDrop(session: EthSession, reason: string): void;
}

export const DISCONNECT = {
  requested: 0x00,
  uselessPeer: 0x03,
  tooManyPeers: 0x04,
  timeout: 0x0b,
  subprotocolError: 0x10,
} as const;

const MAX_INFLIGHT = 16;
/** Score at which a peer is dropped: each timeout costs 1, each useless reply 2. */
const DROP_SCORE = -6;

interface Pending {
  code: number;
  resolve(payload: Uint8Array): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class EthSession {
  readonly version: number;
  remote: Status | undefined;
  head: { hash: Uint8Array; number: bigint | undefined } = { hash: new Uint8Array(32), number: undefined };
  score = 0;
  closed = false;
  private readonly pending = new Map<bigint, Pending>();
  private nextId = BigInt(Math.floor(Math.random() * 2 ** 31));
  private readonly handshakeTimer: NodeJS.Timeout;
  private ready = false;

  constructor(
    private readonly ctx: EthContext,
    version: number,
    readonly wire: WirePeer,
    private readonly sendRaw: Send,
  ) {
    this.version = version;
    this.handshakeTimer = setTimeout(
      () => this.drop('STATUS handshake timed out', DISCONNECT.timeout),
      ctx.handshakeTimeoutMs,
    );
    // After the RLPx layer has finished handling the HELLO that created this session.
    setImmediate(() => this.send(EthCode.Status, encodeStatus(ctx.status())));
  }

  get id(): string {
    const id = this.wire.getId();
    return id === null ? '' : Buffer.from(id).toString('hex');
  }

  private send(code: number, payload: Uint8Array): void {
    if (this.closed) return;
    const hello = this.wire.getHelloMessage();
    const data = hello !== null && hello.protocolVersion >= 5 ? snappy.compress(payload) : payload;
    this.sendRaw(code, data);
  }

  /** Called by the RLPx peer with each eth message (payload already decompressed). */
  _handleMessage(code: number, payload: Uint8Array): void {
    if (this.closed) return;
    try {
      if (payload.length > LIMITS.maxMessageSize) throw new PeerProtocolError(`message of ${payload.length} bytes`);
      if (code === EthCode.Status) this.onStatus(payload);
      else if (!this.ready) throw new PeerProtocolError(`message ${code} before STATUS`);
      else this.onMessage(code, payload);
    } catch (err) {
      const reason = err instanceof PeerProtocolError ? err.message : `internal: ${String(err)}`;
      this.drop(reason, DISCONNECT.subprotocolError);
    }
  }

  private onStatus(payload: Uint8Array): void {
    if (this.remote !== undefined) throw new PeerProtocolError('second STATUS');
    const s = decodeStatus(payload);
    const local = this.ctx.status();
    if (s.version !== this.version) throw new PeerProtocolError(`protocol version ${s.version}, want ${this.version}`);
    if (s.networkId !== local.networkId) {
      throw new PeerProtocolError(`network id ${s.networkId}, want ${local.networkId}`);
    }
    if (toHex(s.genesis) !== toHex(local.genesis)) {
      throw new PeerProtocolError(`genesis ${toHex(s.genesis)}, want ${toHex(local.genesis)}`);
    }
    const verdict = this.ctx.checkForkId(s.forkId);
    if (verdict !== 'ok') {
      throw new PeerProtocolError(`fork id ${toHex(s.forkId.hash)}/${s.forkId.next} rejected: ${verdict}`);
    }
    clearTimeout(this.handshakeTimer);
    this.remote = s;
    this.head = { hash: s.head, number: undefined };
    this.ready = true;
    this.ctx.onReady(this);
  }

  private onMessage(code: number, payload: Uint8Array): void {
    switch (code) {
      case EthCode.GetBlockHeaders: {
        const q = decodeGetBlockHeaders(payload);
        this.send(EthCode.BlockHeaders, encodeReply(q.requestId, serveHeaders(this.ctx.serve, q)));
        return;
      }
      case EthCode.GetBlockBodies: {
        const q = decodeHashesRequest(payload, 'GetBlockBodies', LIMITS.maxBodiesServe);
        this.send(EthCode.BlockBodies, encodeReply(q.requestId, serveBodies(this.ctx.serve, q.hashes)));
        return;
      }
      case EthCode.GetReceipts: {
        const q = decodeHashesRequest(payload, 'GetReceipts', LIMITS.maxReceiptsServe);
        this.send(EthCode.Receipts, encodeReply(q.requestId, serveReceipts(this.ctx.serve, q.hashes)));
        return;
      }
      case EthCode.GetPooledTransactions: {
        const q = decodeHashesRequest(payload, 'GetPooledTransactions', LIMITS.maxPooledTxServe);
        const txs = servePooledTransactions(this.ctx.serve, q.hashes);
        this.send(EthCode.PooledTransactions, encodeReply(q.requestId, txs));
        return;
      }
      case EthCode.BlockHeaders:
      case EthCode.BlockBodies:
      case EthCode.Receipts:
      case EthCode.PooledTransactions:
        this.onReply(code, payload);
        return;
      case EthCode.Transactions: {
        const txs = decodeTransactions(payload);
        if (this.ctx.txGossip) for (const tx of txs) this.ctx.addRemoteTx(tx);
        return;
      }
      case EthCode.NewPooledTransactionHashes: {
        const a = decodePooledHashes(payload);
        if (this.ctx.txGossip) this.fetchAnnounced(a.hashes);
        return;
      }
      case EthCode.NewBlockHashes:
      case EthCode.NewBlock:
        // Block propagation ended with the merge; an OP chain's blocks come from its consensus node.
        return;
      default:
        throw new PeerProtocolError(`unknown eth message code ${code}`);
    }
  }

  private onReply(code: number, payload: Uint8Array): void {
    const { requestId } = decodeRawReply(payload, 'reply');
    const p = this.pending.get(requestId);
    if (p === undefined || p.code !== code) throw new PeerProtocolError(`unrequested reply ${code} (id ${requestId})`);
    this.pending.delete(requestId);
    clearTimeout(p.timer);
    p.resolve(payload);
  }

  private fetchAnnounced(hashes: readonly Uint8Array[]): void {
    const unknown = hashes.filter((h) => !this.ctx.knownTx(h)).slice(0, LIMITS.maxPooledTxServe);
    if (unknown.length === 0 || this.pending.size >= MAX_INFLIGHT) return;
    this.request(EthCode.GetPooledTransactions, EthCode.PooledTransactions, (id) => encodeHashesRequest(id, unknown))
      .then((payload) => {
        const { items } = decodeRawReply(payload, 'PooledTransactions');
        if (items.length > unknown.length) throw new PeerProtocolError('PooledTransactions: more than asked');
        for (const tx of transactionsFromItems(items, 'PooledTransactions')) this.ctx.addRemoteTx(tx);
      })
      .catch((err) => this.fail(err));
  }

  /** Announces transaction hashes (eth/68: with types and sizes). */
  announce(types: number[], sizes: number[], hashes: Uint8Array[]): void {
    if (!this.ready || hashes.length === 0) return;
    this.send(EthCode.NewPooledTransactionHashes, encodePooledHashes({ types: Uint8Array.from(types), sizes, hashes }));
  }

  private request(
    code: number,
    replyCode: number,
    build: (id: bigint) => Uint8Array,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new Error(`peer ${this.id.slice(0, 16)} is gone`));
    if (this.pending.size >= MAX_INFLIGHT) return Promise.reject(new Error('too many requests in flight to this peer'));
    const id = this.nextId++;
    return new Promise<Uint8Array>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.adjustScore(-1, 'request timed out');
        reject(new Error(`request ${code} to peer ${this.id.slice(0, 16)} timed out`));
      }, this.ctx.requestTimeoutMs);
      this.pending.set(id, { code: replyCode, resolve, reject, timer });
      signal?.addEventListener(
        'abort',
        () => {
          const p = this.pending.get(id);
          if (p === undefined) return;
          this.pending.delete(id);
          clearTimeout(p.timer);
          reject(new Error('aborted'));
        },
        { once: true },
      );
      this.send(code, build(id));
    });
  }

  private fail(err: unknown): void {
    if (err instanceof PeerProtocolError) this.drop(err.message, DISCONNECT.subprotocolError);
  }

  adjustScore(delta: number, why: string): void {
    this.score += delta;
    if (this.score <= DROP_SCORE) this.drop(`score ${this.score} (last: ${why})`, DISCONNECT.uselessPeer);
  }

  async getBlockHeaders(req: HeaderRequest, signal?: AbortSignal): Promise<Uint8Array[]> {
    if (req.amount < 0 || req.skip < 0) throw new Error('negative amount or skip');
    const payload = await this.request(
      EthCode.GetBlockHeaders,
      EthCode.BlockHeaders,
      (id) =>
        encodeGetBlockHeaders({
          requestId: id,
          origin: req.origin,
          amount: BigInt(req.amount),
          skip: BigInt(req.skip),
          reverse: req.reverse,
        }),
      signal,
    );
    return this.checked(() => {
      const { items } = decodeRawReply(payload, 'BlockHeaders');
      if (items.length > req.amount) throw new PeerProtocolError('BlockHeaders: more headers than asked');
      requireListItems(items, 'BlockHeaders');
      return items;
    });
  }

  async getBlockBodies(hashes: Uint8Array[], signal?: AbortSignal): Promise<Uint8Array[]> {
    const payload = await this.request(
      EthCode.GetBlockBodies,
      EthCode.BlockBodies,
      (id) => encodeHashesRequest(id, hashes),
      signal,
    );
    return this.checked(() => {
      const { items } = decodeRawReply(payload, 'BlockBodies');
      if (items.length > hashes.length) throw new PeerProtocolError('BlockBodies: more bodies than asked');
      requireListItems(items, 'BlockBodies');
      return items;
    });
  }

  async getReceipts(hashes: Uint8Array[], signal?: AbortSignal): Promise<Uint8Array[][]> {
    const payload = await this.request(
      EthCode.GetReceipts,
      EthCode.Receipts,
      (id) => encodeHashesRequest(id, hashes),
      signal,
    );
    return this.checked(() => {
      const { blocks } = decodeReceiptsReply(payload);
      if (blocks.length > hashes.length) throw new PeerProtocolError('Receipts: more lists than asked');
      return blocks;
    });
  }

  private checked<T>(f: () => T): T {
    try {
      return f();
    } catch (err) {
      this.fail(err);
      throw err;
    }
  }

  drop(reason: string, code: number): void {
    if (this.closed) return;
    this.close();
    this.ctx.onDrop(this, reason);
    this.wire.disconnect(code);
  }

  /** The connection ended: fail what is in flight. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.handshakeTimer);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(`peer ${this.id.slice(0, 16)} disconnected`));
    }
    this.pending.clear();
  }
}
