// Request-response sync (rollup-node-p2p.md "Req-Resp", op-node's sync.go): protocol
// /opstack/req/payload_by_number/<chainId>/0. The request is the block number as u64 little-endian; the response
// is a result byte (0 ok, 1 not found, 2 invalid request, 3 unknown error), a u32 little-endian version (0 payload,
// 1 Ecotone envelope, 2 Isthmus envelope) and the snappy-framed SSZ, at most 10 MiB decoded. The server answers
// within rate limits (20/s overall, burst 40; 4/s per peer, burst 15), delaying rather than refusing, so a
// well-behaved client is never punished for asking fast.
import type { Stream } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { snappyFrameDecode, snappyFrameEncode } from '../../common/snappy.js';
import type { RollupConfig } from '../../primitives/rollup/config.js';
import type { ExecutionPayload, L2Payload } from '../engine/interface.js';
import { isNotFound } from '../engine/interface.js';
import { type BlockVersion, blockVersion, gossipPayload } from '../signer/gossipPayload.js';
import { payloadBlockHash } from './blockHash.js';
import type { TernLibp2p } from './host.js';
import { decodePayloadSsz } from './payloadSsz.js';
import { TokenBucket } from './tokenBucket.js';
import { MAX_GOSSIP_SIZE } from './topics.js';

export const RESULT_OK = 0;
export const RESULT_NOT_FOUND = 1;
export const RESULT_INVALID_REQUEST = 2;
export const RESULT_UNKNOWN = 3;

/** The largest payload a response carries (op-node: the gossip limit). */
export const MAX_RESPONSE_PAYLOAD = MAX_GOSSIP_SIZE;
/** Framing overhead bound: stream identifier plus 8 bytes per 64 KiB chunk, and result byte and version. */
const MAX_RESPONSE_BYTES = MAX_RESPONSE_PAYLOAD + 10 + 8 * Math.ceil(MAX_RESPONSE_PAYLOAD / 65536) + 5 + 1024;
const REQUEST_TIMEOUT_MS = 10_000;

export function payloadByNumberProtocol(l2ChainId: bigint): string {
  return `/opstack/req/payload_by_number/${l2ChainId.toString()}/0`;
}

export function encodeRequest(num: bigint): Uint8Array {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(num);
  return new Uint8Array(b);
}

export function decodeRequest(data: Uint8Array): bigint {
  if (data.length !== 8) throw new TernError('P2P_REQUEST', `request is ${data.length} bytes, expected 8`);
  return Buffer.from(data.buffer, data.byteOffset, 8).readBigUInt64LE();
}

/** Response version of a block version: 0 for v1/v2 payloads, 1 Ecotone envelope, 2 Isthmus envelope. */
export function responseVersion(v: BlockVersion): number {
  return v <= 2 ? 0 : v - 2;
}

/** Encodes an ok response carrying `p`. */
export function encodeOkResponse(cfg: RollupConfig, p: L2Payload): Uint8Array {
  const { version, bytes } = gossipPayload(cfg, p.payload, p.parentBeaconBlockRoot);
  const body = snappyFrameEncode(bytes);
  const out = new Uint8Array(5 + body.length);
  out[0] = RESULT_OK;
  new DataView(out.buffer).setUint32(1, responseVersion(version), true);
  out.set(body, 5);
  return out;
}

export function encodeErrorResponse(code: number): Uint8Array {
  return Uint8Array.from([code]);
}

export type DecodedResponse =
  | { ok: true; payload: ExecutionPayload; parentBeaconBlockRoot: Uint8Array | undefined }
  | { ok: false; code: number };

// Offset of the timestamp in every payload version's fixed part (parent … gasUsed).
const TIMESTAMP_AT = 32 + 20 + 32 + 32 + 256 + 32 + 8 + 8 + 8;

/**
 * Decodes and checks a response to a request for `expected`: result code, version consistent with the block's
 * timestamp, SSZ, the block number and the block hash. Throws P2P_RESPONSE for anything malformed.
 */
export function decodeResponse(cfg: RollupConfig, expected: bigint, data: Uint8Array): DecodedResponse {
  const bad = (m: string) => new TernError('P2P_RESPONSE', m);
  if (data.length < 1) throw bad('empty response');
  const code = data[0] as number;
  if (code !== RESULT_OK) return { ok: false, code };
  if (data.length < 5) throw bad('response too short for its version');
  const version = new DataView(data.buffer, data.byteOffset + 1, 4).getUint32(0, true);
  if (version > 2) throw bad(`unknown response version ${version}`);
  const bytes = snappyFrameDecode(data.subarray(5), MAX_RESPONSE_PAYLOAD);
  const pbbrLen = version >= 1 ? 32 : 0;
  if (bytes.length < pbbrLen + TIMESTAMP_AT + 8) throw bad('response payload too short');
  const ssz = bytes.subarray(pbbrLen);
  const timestamp = Number(Buffer.from(ssz.buffer, ssz.byteOffset + TIMESTAMP_AT, 8).readBigUInt64LE());
  const blockV = blockVersion(cfg, timestamp);
  if (responseVersion(blockV) !== version) {
    throw bad(`response version ${version} does not fit a block at time ${timestamp} (v${blockV})`);
  }
  const parentBeaconBlockRoot = pbbrLen > 0 ? bytes.slice(0, 32) : undefined;
  const payload = decodePayloadSsz(ssz, blockV);
  if (payload.blockNumber !== expected) throw bad(`asked for block ${expected}, got ${payload.blockNumber}`);
  const hash = payloadBlockHash(payload, blockV, parentBeaconBlockRoot);
  if (Buffer.compare(hash, payload.blockHash) !== 0) throw bad(`block ${expected} has a wrong block hash`);
  return { ok: true, payload, parentBeaconBlockRoot };
}

/** Reads a stream to its end, refusing more than `max` bytes. */
async function readAll(stream: Stream, max: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const b = chunk instanceof Uint8Array ? chunk : chunk.subarray();
    total += b.length;
    if (total > max) throw new TernError('P2P_RESPONSE', `more than ${max} bytes`);
    parts.push(b);
  }
  return Buffer.concat(parts);
}

/** Reads the 8-byte request: the first 8 bytes (the client may or may not close its side). */
async function readRequest(stream: Stream): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const b = chunk instanceof Uint8Array ? chunk : chunk.subarray();
    parts.push(b);
    total += b.length;
    if (total >= 8) break;
  }
  return Buffer.concat(parts);
}

export interface ServerSource {
  /** The unsafe head's number (blocks above it are "not found"). */
  unsafeHead(): number | undefined;
  payloadByNumber(num: number): Promise<L2Payload>;
}

export interface ReqRespStats {
  served: number;
  notFound: number;
  invalid: number;
}

export interface PayloadServerDeps {
  logger: Logger;
  /** Each answered request: the block asked for, the result code sent and the seconds it took (metrics). */
  onServed?: ((num: bigint, resultCode: number, seconds: number) => void) | undefined;
}

/** Serves payload_by_number on `node`. */
export class PayloadServer {
  readonly #cfg: RollupConfig;
  readonly #source: ServerSource;
  readonly #log: Logger;
  readonly #global = new TokenBucket(20, 40);
  readonly #perPeer = new Map<string, TokenBucket>();
  readonly stats: ReqRespStats = { served: 0, notFound: 0, invalid: 0 };
  readonly #onServed: PayloadServerDeps['onServed'];

  constructor(cfg: RollupConfig, source: ServerSource, deps: PayloadServerDeps) {
    this.#cfg = cfg;
    this.#source = source;
    this.#log = deps.logger.child('reqresp');
    this.#onServed = deps.onServed;
  }

  async register(node: TernLibp2p): Promise<void> {
    await node.handle(payloadByNumberProtocol(this.#cfg.l2ChainId), (stream, connection) =>
      this.#serve(stream, connection.remotePeer.toString()),
    );
  }

  async #serve(stream: Stream, peer: string): Promise<void> {
    try {
      const wait = Math.max(this.#bucket(peer).take(), this.#global.take());
      if (wait > 0) await new Promise((r) => setTimeout(r, Math.min(wait, REQUEST_TIMEOUT_MS)));
      const req = await withTimeout(readRequest(stream), REQUEST_TIMEOUT_MS);
      const started = performance.now();
      const res = await this.answer(req);
      stream.send(res);
      await stream.close();
      if (this.#onServed !== undefined) {
        let num = 0n;
        try {
          num = decodeRequest(req);
        } catch {
          // An invalid request is reported as block 0.
        }
        this.#onServed(num, res[0] ?? RESULT_UNKNOWN, (performance.now() - started) / 1000);
      }
    } catch (err) {
      this.#log.debug('payload_by_number stream failed', { peer, err: (err as Error).message });
      stream.abort(err as Error);
    }
  }

  #bucket(peer: string): TokenBucket {
    let b = this.#perPeer.get(peer);
    if (b === undefined) {
      if (this.#perPeer.size > 1000) this.#perPeer.clear();
      b = new TokenBucket(4, 15);
      this.#perPeer.set(peer, b);
    }
    return b;
  }

  /** The response bytes for raw request bytes (exported for tests and the fuzz harness). */
  async answer(req: Uint8Array): Promise<Uint8Array> {
    let num: bigint;
    try {
      num = decodeRequest(req);
    } catch {
      this.stats.invalid++;
      return encodeErrorResponse(RESULT_INVALID_REQUEST);
    }
    if (num < BigInt(this.#cfg.genesis.l2.number) || num > BigInt(Number.MAX_SAFE_INTEGER)) {
      this.stats.invalid++;
      return encodeErrorResponse(RESULT_INVALID_REQUEST);
    }
    const head = this.#source.unsafeHead();
    if (head === undefined || num > BigInt(head)) {
      this.stats.notFound++;
      return encodeErrorResponse(RESULT_NOT_FOUND);
    }
    try {
      const p = await this.#source.payloadByNumber(Number(num));
      this.stats.served++;
      return encodeOkResponse(this.#cfg, p);
    } catch (err) {
      if (isNotFound(err)) {
        this.stats.notFound++;
        return encodeErrorResponse(RESULT_NOT_FOUND);
      }
      this.#log.warn('Cannot serve a payload', { number: num.toString(), err: (err as Error).message });
      return encodeErrorResponse(RESULT_UNKNOWN);
    }
  }
}

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new TernError('P2P_TIMEOUT', `no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asks `peer` for block `num`. Throws on transport errors, timeouts and malformed answers. */
export async function requestPayload(
  node: TernLibp2p,
  cfg: RollupConfig,
  peer: string,
  num: bigint,
): Promise<DecodedResponse> {
  const signal = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const stream = await node.dialProtocol(peerIdFromString(peer), payloadByNumberProtocol(cfg.l2ChainId), { signal });
  try {
    stream.send(encodeRequest(num));
    await stream.close({ signal });
    const data = await withTimeout(readAll(stream, MAX_RESPONSE_BYTES), REQUEST_TIMEOUT_MS);
    return decodeResponse(cfg, num, data);
  } catch (err) {
    stream.abort(err as Error);
    throw err;
  }
}
