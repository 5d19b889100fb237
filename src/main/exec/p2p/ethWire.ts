// eth/68 messages (devp2p's caps/eth.md): codes, and the decoders of what a peer may send us. Every decoder
// checks shape and bounds and throws PeerProtocolError on anything else, so a bad message drops that peer.
// Large replies (headers, bodies, receipts) are split into raw items (rlpShallow.ts), never decoded here.
import { type RlpDecoded, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { isList, RlpShapeError, splitList, stringPayload } from './rlpShallow.js';

export const ETH_VERSION = 68;
/** Message-code space eth/68 takes after the base protocol (0x00..0x10). */
export const ETH_LENGTH = 17;
export const SNAP_VERSION = 1;
export const SNAP_LENGTH = 8;

export const EthCode = {
  Status: 0x00,
  NewBlockHashes: 0x01,
  Transactions: 0x02,
  GetBlockHeaders: 0x03,
  BlockHeaders: 0x04,
  GetBlockBodies: 0x05,
  BlockBodies: 0x06,
  NewBlock: 0x07,
  NewPooledTransactionHashes: 0x08,
  GetPooledTransactions: 0x09,
  PooledTransactions: 0x0a,
  GetReceipts: 0x0f,
  Receipts: 0x10,
} as const;

/** geth's serving limits (eth/protocols/eth/handler.go). */
export const LIMITS = {
  maxHeadersServe: 1024,
  maxBodiesServe: 1024,
  maxReceiptsServe: 1024,
  maxPooledTxServe: 256,
  softResponseLimit: 2 * 1024 * 1024,
  /** geth's maxMessageSize for eth: 10 MiB. */
  maxMessageSize: 10 * 1024 * 1024,
  /** Hashes a peer may announce in one NewPooledTransactionHashes (geth's fetcher caps at 4096). */
  maxAnnounce: 4096,
} as const;

export class PeerProtocolError extends Error {}

const MAX_U64 = (1n << 64n) - 1n;

function fail(msg: string): never {
  throw new PeerProtocolError(msg);
}

function decode(payload: Uint8Array, what: string): RlpDecoded {
  try {
    return rlpDecode(payload);
  } catch (err) {
    return fail(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function list(x: RlpDecoded | undefined, what: string): RlpDecoded[] {
  return Array.isArray(x) ? x : fail(`${what}: expected a list`);
}

function bytes(x: RlpDecoded | undefined, what: string): Uint8Array {
  return x instanceof Uint8Array ? x : fail(`${what}: expected bytes`);
}

function uint(x: RlpDecoded | undefined, what: string, max = MAX_U64): bigint {
  const b = bytes(x, what);
  if (b.length > 0 && b[0] === 0) fail(`${what}: leading zero byte`);
  if (b.length > 32) fail(`${what}: integer too long`);
  const v = b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`);
  return v > max ? fail(`${what}: ${v} out of range`) : v;
}

function hash32(x: RlpDecoded | undefined, what: string): Uint8Array {
  const b = bytes(x, what);
  return b.length === 32 ? b : fail(`${what}: expected 32 bytes, got ${b.length}`);
}

export interface Status {
  version: number;
  networkId: bigint;
  td: bigint;
  head: Uint8Array;
  genesis: Uint8Array;
  forkId: { hash: Uint8Array; next: bigint };
}

export function encodeStatus(s: Status): Uint8Array {
  return rlpEncode([s.version, s.networkId, s.td, s.head, s.genesis, [s.forkId.hash, s.forkId.next]]);
}

export function decodeStatus(payload: Uint8Array): Status {
  const f = list(decode(payload, 'Status'), 'Status');
  // Later fields are allowed (forward compatibility, as geth's rlp "rest" handling).
  if (f.length < 6) fail(`Status: expected 6 fields, got ${f.length}`);
  const fork = list(f[5], 'Status fork id');
  if (fork.length < 2) fail('Status fork id: expected [hash, next]');
  const forkHash = bytes(fork[0], 'Status fork hash');
  if (forkHash.length !== 4) fail('Status fork hash: expected 4 bytes');
  return {
    version: Number(uint(f[0], 'Status version', 0xffffffffn)),
    networkId: uint(f[1], 'Status network id'),
    td: uint(f[2], 'Status total difficulty', (1n << 256n) - 1n),
    head: hash32(f[3], 'Status head'),
    genesis: hash32(f[4], 'Status genesis'),
    forkId: { hash: forkHash, next: uint(fork[1], 'Status fork next') },
  };
}

export interface GetBlockHeaders {
  requestId: bigint;
  origin: bigint | Uint8Array;
  amount: bigint;
  skip: bigint;
  reverse: boolean;
}

export function encodeGetBlockHeaders(r: GetBlockHeaders): Uint8Array {
  return rlpEncode([r.requestId, [r.origin, r.amount, r.skip, r.reverse ? 1 : 0]]);
}

export function decodeGetBlockHeaders(payload: Uint8Array): GetBlockHeaders {
  const f = list(decode(payload, 'GetBlockHeaders'), 'GetBlockHeaders');
  if (f.length !== 2) fail('GetBlockHeaders: expected [request-id, query]');
  const q = list(f[1], 'GetBlockHeaders query');
  if (q.length !== 4) fail('GetBlockHeaders query: expected [origin, amount, skip, reverse]');
  const o = bytes(q[0], 'GetBlockHeaders origin');
  const reverse = uint(q[3], 'GetBlockHeaders reverse', 1n) === 1n;
  return {
    requestId: uint(f[0], 'request id'),
    origin: o.length === 32 ? o : uint(o, 'GetBlockHeaders origin number'),
    amount: uint(q[1], 'GetBlockHeaders amount'),
    skip: uint(q[2], 'GetBlockHeaders skip'),
    reverse,
  };
}

/** [request-id, [hash...]]: GetBlockBodies, GetReceipts, GetPooledTransactions. */
export interface HashesRequest {
  requestId: bigint;
  hashes: Uint8Array[];
}

export function encodeHashesRequest(requestId: bigint, hashes: readonly Uint8Array[]): Uint8Array {
  return rlpEncode([requestId, [...hashes]]);
}

export function decodeHashesRequest(payload: Uint8Array, what: string, max: number): HashesRequest {
  const f = list(decode(payload, what), what);
  if (f.length !== 2) fail(`${what}: expected [request-id, hashes]`);
  const hs = list(f[1], `${what} hashes`);
  // Geth serves at most `max` and ignores the rest; a request far past that is abuse.
  if (hs.length > max * 4) fail(`${what}: ${hs.length} hashes requested`);
  return {
    requestId: uint(f[0], 'request id'),
    hashes: hs.slice(0, max).map((h, i) => hash32(h, `${what} hash ${i}`)),
  };
}

/** A reply [request-id, [item...]] with its items kept raw. */
export interface RawReply {
  requestId: bigint;
  items: Uint8Array[];
}

function shape<T>(what: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof RlpShapeError) fail(`${what}: ${err.message}`);
    throw err;
  }
}

/** Replies whose items are kept as raw RLP (BlockHeaders, BlockBodies, PooledTransactions). */
export function decodeRawReply(payload: Uint8Array, what: string): RawReply {
  return shape(what, () => {
    const outer = splitList(payload);
    if (outer.length !== 2) fail(`${what}: expected [request-id, items]`);
    const requestId = uint(decode(outer[0] as Uint8Array, `${what} request id`), `${what} request id`);
    const items = splitList(outer[1] as Uint8Array);
    return { requestId, items };
  });
}

/** Headers and bodies are lists; anything else in such a reply is malformed. */
export function requireListItems(items: readonly Uint8Array[], what: string): void {
  shape(what, () => {
    for (const [i, item] of items.entries()) if (!isList(item)) fail(`${what} item ${i}: expected a list`);
  });
}

/**
 * Receipts reply: per block, its receipts in consensus encoding (a typed receipt travels as an RLP string
 * holding type ‖ rlp; a legacy one as its RLP list).
 */
export function decodeReceiptsReply(payload: Uint8Array): { requestId: bigint; blocks: Uint8Array[][] } {
  const { requestId, items } = decodeRawReply(payload, 'Receipts');
  return shape('Receipts', () => ({
    requestId,
    blocks: items.map((block) => splitList(block).map((r) => (isList(r) ? r : stringPayload(r)))),
  }));
}

export interface PooledHashesAnnouncement {
  types: Uint8Array;
  sizes: number[];
  hashes: Uint8Array[];
}

export function encodePooledHashes(a: PooledHashesAnnouncement): Uint8Array {
  return rlpEncode([a.types, a.sizes, a.hashes]);
}

/** eth/68 NewPooledTransactionHashes: [types, [size...], [hash...]], the three of equal length. */
export function decodePooledHashes(payload: Uint8Array): PooledHashesAnnouncement {
  const f = list(decode(payload, 'NewPooledTransactionHashes'), 'NewPooledTransactionHashes');
  if (f.length !== 3) fail('NewPooledTransactionHashes: expected [types, sizes, hashes]');
  const types = bytes(f[0], 'NewPooledTransactionHashes types');
  const sizes = list(f[1], 'NewPooledTransactionHashes sizes');
  const hashes = list(f[2], 'NewPooledTransactionHashes hashes');
  if (types.length !== sizes.length || sizes.length !== hashes.length) {
    fail(`NewPooledTransactionHashes: ${types.length} types, ${sizes.length} sizes, ${hashes.length} hashes`);
  }
  if (hashes.length > LIMITS.maxAnnounce) fail(`NewPooledTransactionHashes: ${hashes.length} hashes announced`);
  return {
    types,
    sizes: sizes.map((s, i) => Number(uint(s, `announced size ${i}`, 0xffffffffn))),
    hashes: hashes.map((h, i) => hash32(h, `announced hash ${i}`)),
  };
}

/** Transactions (0x02): the raw network encodings (typed as RLP strings holding type ‖ payload). */
export function decodeTransactions(payload: Uint8Array): Uint8Array[] {
  return shape('Transactions', () => transactionsFromItems(splitList(payload), 'Transactions'));
}

/** List elements → transactions in their consensus form (typed: type ‖ payload; legacy: the RLP list). */
export function transactionsFromItems(items: readonly Uint8Array[], what: string): Uint8Array[] {
  return shape(what, () => items.map((t) => (isList(t) ? t : stringPayload(t))));
}

/** An RLP list around items that are already encoded (no re-encoding of large replies). */
export function listOfRaw(items: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of items) n += p.length;
  let header: Uint8Array;
  if (n < 56) header = Uint8Array.of(0xc0 + n);
  else {
    const len: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) len.unshift(v % 256);
    header = Uint8Array.of(0xf7 + len.length, ...len);
  }
  const out = new Uint8Array(header.length + n);
  out.set(header, 0);
  let o = header.length;
  for (const p of items) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** [request-id, [item...]] with the items already encoded. */
export function encodeReply(requestId: bigint, items: readonly Uint8Array[]): Uint8Array {
  return listOfRaw([rlpEncode(requestId), listOfRaw(items)]);
}
