// A peer's snap/1 session: requests it sends are handed, as raw payloads by message code, to the SnapServer the
// node was given (the sync side owns snap's meaning); our requests to it are matched to its replies by request id.
import type { SnapServer } from '../sync/peer.js';
import type { Send, WirePeer } from './ethSession.js';
import { PeerProtocolError, SNAP_LENGTH } from './ethWire.js';
import { RlpShapeError, splitList, stringPayload } from './rlpShallow.js';
import { snappy } from './snappy.js';

const MAX_INFLIGHT = 16;
/** geth's snap softResponseLimit is 2 MiB; a reply is bounded by the devp2p message limit. */
const MAX_REPLY = 0xffffff;

interface Pending {
  resolve(p: Uint8Array): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

export interface SnapContext {
  server: SnapServer | undefined;
  requestTimeoutMs: number;
  onProtocolError(wire: WirePeer, reason: string): void;
}

/** The request id, the first element of every snap/1 message. */
export function snapRequestId(payload: Uint8Array): bigint {
  try {
    const first = splitList(payload)[0];
    if (first === undefined) throw new PeerProtocolError('snap message without a request id');
    const b = stringPayload(first);
    if (b.length > 8 || (b.length > 0 && b[0] === 0)) throw new PeerProtocolError('snap request id is not a uint64');
    return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
  } catch (err) {
    if (err instanceof RlpShapeError) throw new PeerProtocolError(`snap message: ${err.message}`);
    throw err;
  }
}

export class SnapSession {
  private readonly pending = new Map<bigint, Pending>();
  closed = false;

  constructor(
    private readonly ctx: SnapContext,
    readonly version: number,
    readonly wire: WirePeer,
    private readonly sendRaw: Send,
  ) {}

  private send(code: number, payload: Uint8Array): void {
    if (this.closed) return;
    const hello = this.wire.getHelloMessage();
    this.sendRaw(code, hello !== null && hello.protocolVersion >= 5 ? snappy.compress(payload) : payload);
  }

  _handleMessage(code: number, payload: Uint8Array): void {
    if (this.closed) return;
    try {
      if (code < 0 || code >= SNAP_LENGTH) throw new PeerProtocolError(`unknown snap message code ${code}`);
      if (payload.length > MAX_REPLY) throw new PeerProtocolError(`snap message of ${payload.length} bytes`);
      const id = snapRequestId(payload);
      if (code % 2 === 0) {
        const server = this.ctx.server;
        if (server === undefined) return; // no snap state to serve: the peer's request times out on its side
        server.serve(code, payload).then(
          (reply) => this.send(reply.code, reply.payload),
          () => undefined,
        );
        return;
      }
      const p = this.pending.get(id);
      if (p === undefined) throw new PeerProtocolError(`unrequested snap reply ${code} (id ${id})`);
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.resolve(payload);
    } catch (err) {
      this.ctx.onProtocolError(this.wire, err instanceof Error ? err.message : String(err));
    }
  }

  request(code: number, payload: Uint8Array, signal?: AbortSignal): Promise<Uint8Array> {
    if (this.closed) return Promise.reject(new Error('peer is gone'));
    if (code % 2 !== 0 || code >= SNAP_LENGTH) return Promise.reject(new Error(`snap code ${code} is not a request`));
    const id = snapRequestId(payload);
    if (this.pending.has(id)) return Promise.reject(new Error(`snap request id ${id} already in flight`));
    if (this.pending.size >= MAX_INFLIGHT) return Promise.reject(new Error('too many snap requests in flight'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`snap request ${code} timed out`));
      }, this.ctx.requestTimeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      signal?.addEventListener(
        'abort',
        () => {
          if (!this.pending.delete(id)) return;
          clearTimeout(timer);
          reject(new Error('aborted'));
        },
        { once: true },
      );
      this.send(code, payload);
    });
  }

  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error('peer disconnected'));
    }
    this.pending.clear();
  }
}
