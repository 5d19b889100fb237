// eth_getLogs (geth's eth/filters): the filter object with geth's decoding rules and limits (4 topic positions,
// 1000 addresses, 1000 alternatives per position, null as a wildcard), then the block range: where the log index
// (history/logIndex.ts) covers it, only the blocks it lists as candidates are read; elsewhere each header's bloom
// first, the receipts only of blocks whose bloom may match. Either way the match itself is made on the receipts.

import {
  type BlockNumberParam,
  decodeBlockNumber,
  decodeHash,
  invalidArgument,
  ParamError,
} from '../../common/rpc/params.js';
import { keccak256 } from '../../native/keccak.js';
import type { Log } from '../../primitives/receipt/receipt.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import { type ChainView, equalBytes, type HeaderRef } from '../chain/chainView.js';
import { blockLogList } from '../history/logCache.js';
import { candidateBlocks, readLogIndexRange } from '../history/logIndex.js';
import { headerByNumber } from './blockTag.js';
import { hex, qty } from './format.js';

const MAX_ADDRESSES = 1000;
const MAX_TOPICS = 4;
const MAX_SUB_TOPICS = 1000;

export interface LogFilter {
  blockHash?: Uint8Array | undefined;
  fromBlock?: BlockNumberParam | undefined;
  toBlock?: BlockNumberParam | undefined;
  /** Hex, lower case; empty matches every address. */
  addresses: string[];
  /** Per position, the accepted topics (hex, lower case); an empty list is a wildcard. */
  topics: string[][];
}

/** hexutil.Decode's checks and errors. */
function hexutilDecode(s: string): Uint8Array {
  if (s.length === 0) throw new ParamError('empty hex string');
  if (!(s.startsWith('0x') || s.startsWith('0X'))) throw new ParamError('hex string without 0x prefix');
  const digits = s.slice(2);
  if (digits.length % 2 !== 0) throw new ParamError('hex string of odd length');
  if (!/^[0-9a-fA-F]*$/.test(digits)) throw new ParamError('invalid hex string');
  return Uint8Array.from(Buffer.from(digits, 'hex'));
}

function decodeFixed(s: string, len: number, what: string): string {
  const b = hexutilDecode(s);
  if (b.length !== len) {
    throw new ParamError(`hex has invalid length ${b.length} after decoding; expected ${len} for ${what}`);
  }
  return hex(b);
}

/** Decodes geth's FilterCriteria; errors are answered as invalid argument 0. */
export function decodeLogFilter(v: unknown): LogFilter {
  try {
    return parseFilter(v);
  } catch (err) {
    if (err instanceof ParamError) throw invalidArgument(0, err.message);
    throw err;
  }
}

function parseFilter(v: unknown): LogFilter {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new ParamError(
      `json: cannot unmarshal ${Array.isArray(v) ? 'array' : typeof v} into Go value of type filters.input`,
    );
  }
  const o = v as Record<string, unknown>;
  const present = (x: unknown) => x !== undefined && x !== null;
  const out: LogFilter = { addresses: [], topics: [] };
  if (present(o.blockHash)) {
    if (present(o.fromBlock) || present(o.toBlock)) {
      throw new ParamError('cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other');
    }
    out.blockHash = Uint8Array.from(Buffer.from(decodeHash(o.blockHash).slice(2), 'hex'));
  } else {
    if (present(o.fromBlock)) out.fromBlock = decodeBlockNumber(o.fromBlock);
    if (present(o.toBlock)) out.toBlock = decodeBlockNumber(o.toBlock);
  }
  const addr = o.address;
  if (present(addr)) {
    if (Array.isArray(addr)) {
      if (addr.length > MAX_ADDRESSES) throw new ParamError('exceed max addresses');
      addr.forEach((a, i) => {
        if (typeof a !== 'string') throw new ParamError(`non-string address at index ${i}`);
        try {
          out.addresses.push(decodeFixed(a, 20, 'address'));
        } catch (err) {
          throw new ParamError(`invalid address at index ${i}: ${(err as Error).message}`);
        }
      });
    } else if (typeof addr === 'string') {
      try {
        out.addresses = [decodeFixed(addr, 20, 'address')];
      } catch (err) {
        throw new ParamError(`invalid address: ${(err as Error).message}`);
      }
    } else {
      throw new ParamError('invalid addresses in query');
    }
  }
  const topics = o.topics;
  if (present(topics)) {
    if (!Array.isArray(topics)) {
      throw new ParamError(
        `json: cannot unmarshal ${typeof topics} into Go struct field input.topics of type []interface {}`,
      );
    }
    if (topics.length > MAX_TOPICS) throw new ParamError('exceed max topics');
    for (const t of topics) {
      if (t === null) {
        out.topics.push([]);
      } else if (typeof t === 'string') {
        out.topics.push([decodeFixed(t, 32, 'topic')]);
      } else if (Array.isArray(t)) {
        if (t.length > MAX_SUB_TOPICS) throw new ParamError('exceed max topics');
        let alternatives: string[] = [];
        for (const x of t) {
          if (x === null) {
            alternatives = [];
            break;
          }
          if (typeof x !== 'string') throw new ParamError('invalid topic(s)');
          alternatives.push(decodeFixed(x, 32, 'topic'));
        }
        out.topics.push(alternatives);
      } else {
        throw new ParamError('invalid topic(s)');
      }
    }
  }
  return out;
}

/** Whether the bloom may contain `item` (the three bits keccak(item) selects). */
function bloomHas(bloom: Uint8Array, item: Uint8Array): boolean {
  const h = keccak256(item);
  for (let i = 0; i < 6; i += 2) {
    const bit = (((h[i] as number) << 8) | (h[i + 1] as number)) & 2047;
    const byte = 255 - (bit >> 3);
    if (((bloom[byte] as number) & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

function bloomMatches(bloom: Uint8Array, f: LogFilter): boolean {
  if (f.addresses.length > 0 && !f.addresses.some((a) => bloomHas(bloom, bytesOf(a)))) return false;
  for (const sub of f.topics) {
    if (sub.length > 0 && !sub.some((t) => bloomHas(bloom, bytesOf(t)))) return false;
  }
  return true;
}

function logMatches(log: Log, f: LogFilter): boolean {
  if (f.addresses.length > 0 && !f.addresses.includes(hex(log.address))) return false;
  if (f.topics.length > log.topics.length) return false;
  for (let i = 0; i < f.topics.length; i++) {
    const sub = f.topics[i] as string[];
    if (sub.length > 0 && !sub.includes(hex(log.topics[i] as Uint8Array))) return false;
  }
  return true;
}

/** The matching logs of one block, with their positions. */
function blockLogs(view: ChainView, ref: HeaderRef, f: LogFilter): Array<Record<string, unknown>> {
  if (!bloomMatches(ref.header.logsBloom, f)) return [];
  const logs = blockLogList(view, ref);
  if (!logs) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const { log, txIndex, logIndex, txHash } of logs) {
    if (!logMatches(log, f)) continue;
    out.push({
      address: hex(log.address),
      topics: log.topics.map(hex),
      data: hex(log.data),
      blockNumber: qty(ref.header.number),
      transactionHash: txHash,
      transactionIndex: qty(txIndex),
      blockHash: hex(ref.hash),
      logIndex: qty(logIndex),
      removed: false,
    });
  }
  return out;
}

/** How far back from the recorded index head a query walks to find where a reorg left the index valid. */
const MAX_INDEX_REWIND = 1024;

/**
 * The blocks the log index of this view covers correctly: its recorded range, cut below the first block of a
 * branch the chain has left (the indexer unwinds it in the background). Undefined when there is no usable index.
 */
export function validIndexRange(view: ChainView): { tail: number; head: number } | undefined {
  const range = readLogIndexRange(view.kv);
  if (range === undefined) return undefined;
  let { number, hash } = range.head;
  for (let i = 0; i < MAX_INDEX_REWIND && number >= range.tail; i++) {
    if (equalBytes(view.canonicalHash(BigInt(number)), hash)) return { tail: range.tail, head: number };
    const header = view.headerByHash(hash);
    if (!header) return undefined;
    hash = header.parentHash;
    number--;
  }
  return undefined;
}

/** The matching logs of canonical blocks [first, last]: index candidates where the index is valid, a scan elsewhere. */
function rangeLogs(
  view: ChainView,
  f: LogFilter,
  first: bigint,
  last: bigint,
  signal: AbortSignal | undefined,
): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const visit = (n: bigint) => {
    if (signal?.aborted) throw serverError('context canceled');
    const ref = view.headerByNumber(n);
    if (!ref) throw serverError('header not found');
    out.push(...blockLogs(view, ref, f));
  };
  const index = validIndexRange(view);
  const lo = index === undefined ? last + 1n : BigInt(Math.max(index.tail, Number(first)));
  const hi = index === undefined ? first - 1n : BigInt(Math.min(index.head, Number(last)));
  if (lo > hi) {
    for (let n = first; n <= last; n++) visit(n);
    return out;
  }
  for (let n = first; n < lo; n++) visit(n);
  const q = { addresses: f.addresses.map(bytesOf), topics: f.topics.map((alts) => alts.map(bytesOf)) };
  for (const n of candidateBlocks(view.kv, q, Number(lo), Number(hi))) visit(BigInt(n));
  for (let n = hi + 1n; n <= last; n++) visit(n);
  return out;
}

const tagOrder = (b: BlockNumberParam | undefined): bigint | undefined => (typeof b === 'bigint' ? b : undefined);

/** eth_getLogs over `view` (geth's FilterAPI.GetLogs with an unindexed search). */
export function getLogs(view: ChainView, f: LogFilter, signal?: AbortSignal): Array<Record<string, unknown>> {
  if (f.blockHash !== undefined) {
    const header = view.headerByHash(f.blockHash);
    if (!header) throw serverError('unknown block');
    return blockLogs(view, { header, hash: f.blockHash }, f);
  }
  const from = f.fromBlock ?? 'latest';
  const to = f.toBlock ?? 'latest';
  const b = tagOrder(from);
  const e = tagOrder(to);
  if (b !== undefined && e !== undefined && b > 0n && e > 0n && b > e) throw serverError('invalid block range params');
  if (from === 'pending' || to === 'pending') throw serverError('pending logs are not supported');
  const head = view.head().header.number;
  const resolve = (n: BlockNumberParam): bigint => {
    if (typeof n === 'bigint') return n;
    if (n === 'latest') return head;
    const names: Record<string, string> = { finalized: 'finalized', safe: 'safe', earliest: 'earliest' };
    let ref: HeaderRef | undefined;
    try {
      ref = headerByNumber(view, n);
    } catch {
      ref = undefined;
    }
    if (!ref) throw serverError(`${names[n] ?? n} header not found`);
    return ref.header.number;
  };
  const first = resolve(from);
  const last = resolve(to);
  if (first > last) return [];
  if (last > head) throw serverError('invalid block range params');
  return rangeLogs(view, f, first, last, signal);
}
