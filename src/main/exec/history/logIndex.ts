// The log index ('i' table, db/schema.ts): for each address and each topic at each position, the block numbers that
// have a log with it, plus the blocks that have any log. eth_getLogs intersects the lists of a filter's constraints
// over a block range and reads the receipts only of the blocks that remain, instead of every header in the range
// (geth's core/filtermaps serves the same purpose with its own, denser, layout). The index lists candidate blocks:
// the exact match is still made on the receipts, so results cannot differ from a scan of the same blocks.

import { DbErrorCode, type KVReader, type WriteBatch } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import type { Log } from '../../primitives/receipt/receipt.js';
import {
  decodeNumber,
  encodeNumber,
  HASH_LENGTH,
  LogIndexKind,
  logIndexKey,
  logIndexPrefix,
  MetaKey,
  metaKey,
  NUMBER_LENGTH,
} from '../db/schema.js';

const PRESENT = Uint8Array.of(1);
const EMPTY = new Uint8Array(0);
const MAX_TOPIC_POSITIONS = 4;

/** The index keys of one block's logs (deduplicated). */
export function blockIndexKeys(number: number, logs: readonly Log[]): Uint8Array[] {
  if (logs.length === 0) return [];
  const seen = new Map<string, Uint8Array>();
  const add = (kind: number, value: Uint8Array) => {
    const k = logIndexKey(kind, value, number);
    seen.set(Buffer.from(k).toString('latin1'), k);
  };
  add(LogIndexKind.anyLog, EMPTY);
  for (const log of logs) {
    add(LogIndexKind.address, log.address);
    log.topics.forEach((t, i) => {
      if (i < MAX_TOPIC_POSITIONS) add(LogIndexKind.topic0 + i, t);
    });
  }
  return [...seen.values()];
}

export function writeBlockLogIndex(b: WriteBatch, number: number, logs: readonly Log[]): void {
  for (const k of blockIndexKeys(number, logs)) b.put(k, PRESENT);
}

export function deleteBlockLogIndex(b: WriteBatch, number: number, logs: readonly Log[]): void {
  for (const k of blockIndexKeys(number, logs)) b.delete(k);
}

/** The indexed blocks: [tail, head.number], head.hash being the block indexed at the head. */
export interface LogIndexRange {
  tail: number;
  head: { number: number; hash: Uint8Array };
}

export function readLogIndexRange(r: KVReader): LogIndexRange | undefined {
  const head = r.get(metaKey(MetaKey.logIndexHead));
  const tail = r.get(metaKey(MetaKey.logIndexTail));
  if (head === undefined || tail === undefined) return undefined;
  if (head.length !== NUMBER_LENGTH + HASH_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `stored log index head is ${head.length} bytes, not 40`);
  return { tail: decodeNumber(tail), head: { number: decodeNumber(head), hash: head.slice(NUMBER_LENGTH) } };
}

export function writeLogIndexRange(b: WriteBatch, range: LogIndexRange): void {
  const head = new Uint8Array(NUMBER_LENGTH + HASH_LENGTH);
  head.set(encodeNumber(range.head.number));
  head.set(range.head.hash, NUMBER_LENGTH);
  b.put(metaKey(MetaKey.logIndexHead), head);
  b.put(metaKey(MetaKey.logIndexTail), encodeNumber(range.tail));
}

export function deleteLogIndexRange(b: WriteBatch): void {
  b.delete(metaKey(MetaKey.logIndexHead));
  b.delete(metaKey(MetaKey.logIndexTail));
}

/** A filter's constraints as bytes: any of `addresses` (none: any), and per position any of its topics. */
export interface IndexQuery {
  addresses: readonly Uint8Array[];
  topics: readonly (readonly Uint8Array[])[];
}

function blocksOf(r: KVReader, kind: number, value: Uint8Array, first: number, last: number, into: Set<number>): void {
  const prefix = logIndexPrefix(kind, value);
  const opts = { prefix, gte: logIndexKey(kind, value, first) } as {
    prefix: Uint8Array;
    gte: Uint8Array;
    lt?: Uint8Array;
  };
  if (last < Number.MAX_SAFE_INTEGER) opts.lt = logIndexKey(kind, value, last + 1);
  for (const { key } of r.iterate(opts)) into.add(decodeNumber(key, key.length - NUMBER_LENGTH));
}

/**
 * The blocks in [first, last] that may hold a log matching the query, ascending: the intersection, over the
 * constrained positions (addresses, each topic position with alternatives), of the union of their alternatives'
 * lists; with no constraint at all, the blocks that have logs. The range must lie inside the valid indexed range.
 */
export function candidateBlocks(r: KVReader, q: IndexQuery, first: number, last: number): number[] {
  if (first > last) return [];
  const constraints: Array<Array<[number, Uint8Array]>> = [];
  if (q.addresses.length > 0) constraints.push(q.addresses.map((a) => [LogIndexKind.address, a]));
  q.topics.forEach((alts, i) => {
    if (alts.length > 0 && i < MAX_TOPIC_POSITIONS) constraints.push(alts.map((t) => [LogIndexKind.topic0 + i, t]));
  });
  if (constraints.length === 0) constraints.push([[LogIndexKind.anyLog, EMPTY]]);
  let result: Set<number> | undefined;
  for (const alts of constraints) {
    const set = new Set<number>();
    for (const [kind, value] of alts) blocksOf(r, kind, value, first, last, set);
    if (result === undefined) result = set;
    else {
      const prev: Set<number> = result;
      result = new Set([...set].filter((n) => prev.has(n)));
    }
    if (result.size === 0) break;
  }
  return [...(result ?? [])].sort((a, b) => a - b);
}
