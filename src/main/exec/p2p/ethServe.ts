// Answers to eth/68 requests from the local chain and pool, with geth's limits (eth/protocols/eth/handlers.go):
// at most 1024 headers/bodies/receipt lists and 256 pooled transactions per reply, and a 2 MiB soft size limit
// (the item crossing it is the last one). Everything served is the stored RLP as is: headers, bodies
// ([transactions, uncles, withdrawals?]), receipts in consensus encoding (OP deposit receipts with their
// deposit nonce and version, as the chain store keeps them).
import * as chain from '../db/chain.js';
import type { Database } from '../db/open.js';
import type { TernTxPool } from '../txpool/pool.js';
import { type GetBlockHeaders, LIMITS, listOfRaw } from './ethWire.js';

/** The reads serving needs (a Database in the node, a map in tests). */
export interface ServeSource {
  headerNumber(hash: Uint8Array): number | undefined;
  canonicalHash(number: number): Uint8Array | undefined;
  headerRlp(number: number, hash: Uint8Array): Uint8Array | undefined;
  bodyRlp(number: number, hash: Uint8Array): Uint8Array | undefined;
  receiptsRlp(number: number, hash: Uint8Array): Uint8Array | undefined;
  /** The network form of a pooled transaction. */
  pooledTx(hash: Uint8Array): Uint8Array | undefined;
}

export function databaseServeSource(db: Database, pool: TernTxPool | undefined): ServeSource {
  return {
    headerNumber: (hash) => chain.readHeaderNumber(db, hash),
    canonicalHash: (n) => chain.readCanonicalHash(db, n),
    headerRlp: (n, hash) => chain.readHeaderRlp(db, n, hash),
    bodyRlp: (n, hash) => chain.readBodyRlp(db, n, hash),
    receiptsRlp: (n, hash) => chain.readReceiptsRlp(db, n, hash),
    pooledTx: (hash) => {
      const t = pool?.get(hash);
      return t === undefined || pool === undefined ? undefined : pool.networkForm(t);
    },
  };
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** The headers a GetBlockHeaders asks for, as stored RLP, stopping at the first missing one. */
export function serveHeaders(src: ServeSource, q: GetBlockHeaders): Uint8Array[] {
  const out: Uint8Array[] = [];
  const amount = q.amount > BigInt(LIMITS.maxHeadersServe) ? LIMITS.maxHeadersServe : Number(q.amount);
  let number: bigint;
  let hash: Uint8Array | undefined;
  if (q.origin instanceof Uint8Array) {
    const n = src.headerNumber(q.origin);
    if (n === undefined) return out;
    number = BigInt(n);
    hash = q.origin;
  } else {
    if (q.origin > MAX_SAFE) return out;
    number = q.origin;
    hash = src.canonicalHash(Number(number));
  }
  // A non-canonical origin by hash is served alone: its successors by number would be another branch.
  const originCanonical = hash !== undefined && equal(src.canonicalHash(Number(number)), hash);
  let bytes = 0;
  while (hash !== undefined && out.length < amount && bytes < LIMITS.softResponseLimit) {
    const rlp = src.headerRlp(Number(number), hash);
    if (rlp === undefined) break;
    out.push(rlp);
    bytes += rlp.length;
    if (!originCanonical) break;
    const step = q.skip + 1n;
    const next = q.reverse ? number - step : number + step;
    if (next < 0n || next > MAX_SAFE) break;
    number = next;
    hash = src.canonicalHash(Number(number));
  }
  return out;
}

function equal(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
}

function byHash(
  src: ServeSource,
  hashes: readonly Uint8Array[],
  max: number,
  read: (n: number, hash: Uint8Array) => Uint8Array | undefined,
): Uint8Array[] {
  const out: Uint8Array[] = [];
  let bytes = 0;
  for (const hash of hashes) {
    if (out.length >= max || bytes >= LIMITS.softResponseLimit) break;
    const n = src.headerNumber(hash);
    const item = n === undefined ? undefined : read(n, hash);
    // geth skips unknown blocks (the reply is shorter, the requester matches by position up to the first gap).
    if (item === undefined) continue;
    out.push(item);
    bytes += item.length;
  }
  return out;
}

export function serveBodies(src: ServeSource, hashes: readonly Uint8Array[]): Uint8Array[] {
  return byHash(src, hashes, LIMITS.maxBodiesServe, (n, h) => src.bodyRlp(n, h));
}

/** Per block, the stored receipts list (already an RLP list of consensus-encoded receipts). */
export function serveReceipts(src: ServeSource, hashes: readonly Uint8Array[]): Uint8Array[] {
  return byHash(src, hashes, LIMITS.maxReceiptsServe, (n, h) => src.receiptsRlp(n, h) ?? emptyIfKnown(src, n, h));
}

// A block with no stored receipts row has none (geth answers an empty list for a known header).
function emptyIfKnown(src: ServeSource, n: number, h: Uint8Array): Uint8Array | undefined {
  return src.headerRlp(n, h) === undefined ? undefined : listOfRaw([]);
}

/** Pooled transactions in network form: typed ones as RLP strings (type ‖ payload), legacy as their list. */
export function servePooledTransactions(src: ServeSource, hashes: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let bytes = 0;
  for (const hash of hashes) {
    if (out.length >= LIMITS.maxPooledTxServe || bytes >= LIMITS.softResponseLimit) break;
    const raw = src.pooledTx(hash);
    if (raw === undefined) continue;
    const item = wrapTx(raw);
    out.push(item);
    bytes += item.length;
  }
  return out;
}

/** A transaction as an element of an RLP list: legacy (a list) as is, typed wrapped as a string. */
export function wrapTx(raw: Uint8Array): Uint8Array {
  if ((raw[0] as number) >= 0xc0) return raw;
  const n = raw.length;
  let header: Uint8Array;
  if (n < 56) header = Uint8Array.of(0x80 + n);
  else {
    const len: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) len.unshift(v % 256);
    header = Uint8Array.of(0xb7 + len.length, ...len);
  }
  const out = new Uint8Array(header.length + n);
  out.set(header, 0);
  out.set(raw, header.length);
  return out;
}
