// The chain database schema: one keyspace, each table a one-byte key prefix (the idea of geth's core/rawdb, not its
// bytes: tern's canonical-hash table has its own prefix and the metadata keys are prefixed too, so every table is a
// clean prefix range). Block numbers in keys are 8-byte big-endian, so a table iterates in block order.
//
//   'h' number(8) hash(32)          → header RLP
//   'n' number(8)                   → canonical block hash
//   'H' hash(32)                    → block number (8 bytes)
//   'b' number(8) hash(32)          → body RLP (transactions, uncles, withdrawals: geth's Body encoding)
//   'r' number(8) hash(32)          → receipts RLP (the list, as the block's storage receipts)
//   'l' txHash(32)                  → transaction lookup: block number(8) ‖ index in block(4)
//   'a' address(20)                 → flat state: account (encoding owned by the state module)
//   'o' address(20) slot(32)        → flat state: storage slot value (encoding owned by the state module)
//   'c' codeHash(32)                → contract code
//   't' nodeHash(32)                → trie node RLP (hash scheme)
//   'd' number(8) hash(32)          → reverse state changes of a canonical block (undo it on a reorg)
//   'f' number(8) hash(32)          → forward state changes of a block (apply it when it becomes canonical)
//   'm' name(utf-8)                 → metadata (schema version, engine, chain config, genesis hash, head markers, ...)
//   'i' kind(1) value number(8)     → log index: block `number` has a log with this address (kind 0) or this topic at
//                                     position kind-1 (kinds 1..4); kind 0xff with no value marks a block with logs
//   'p' hash(32)                    → keccak256 preimage: the bytes whose hash is `hash` (--vmdebug: KECCAK256 opcode
//                                     inputs; --cache.preimages: trie keys, address and storage slot), as geth's
//                                     "secure-key-" table; served by debug_preimage
//
// Flat state is keyed by plain address (and plain slot), not by their keccak hashes as geth's snapshot is: the
// executor reads by address with no hashing, storage of one account is one prefix range (self-destruct, dumps), and
// tern has no snap sync that would deliver state by hash. The trie, which is keyed by hashes, lives in 't'.

import { DbErrorCode } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import { TRIE_NODE_PREFIX } from '../../protocol/db/sharedEnv.js';

/** Bumped when the layout changes incompatibly; a database with a higher version is refused. */
export const SCHEMA_VERSION = 1;

export const TablePrefix = {
  header: 0x68, // 'h'
  canonicalHash: 0x6e, // 'n'
  headerNumber: 0x48, // 'H'
  body: 0x62, // 'b'
  receipts: 0x72, // 'r'
  txLookup: 0x6c, // 'l'
  account: 0x61, // 'a'
  storage: 0x6f, // 'o'
  code: 0x63, // 'c'
  trieNode: TRIE_NODE_PREFIX, // 't'
  meta: 0x6d, // 'm'
  reverseChanges: 0x64, // 'd'
  forwardChanges: 0x66, // 'f'
  logIndex: 0x69, // 'i'
  preimage: 0x70, // 'p'
} as const;

/** Metadata entries ('m' + name). */
export const MetaKey = {
  /** uint32 big-endian SCHEMA_VERSION of the layout that wrote the database. */
  schemaVersion: 'SchemaVersion',
  /** utf-8 name of the engine that wrote the database ('lmdb'). */
  engine: 'Engine',
  /** utf-8 JSON of the chain configuration. */
  chainConfig: 'ChainConfig',
  /** 32-byte genesis block hash. */
  genesisHash: 'GenesisHash',
  /** 32-byte hash of the head header (may be ahead of the head block while headers sync). */
  headHeader: 'LastHeader',
  /** 32-byte hash of the head block (the latest fully imported block). */
  headBlock: 'LastBlock',
  /** 32-byte hash of the safe block (forkchoice). */
  safeBlock: 'LastSafe',
  /** 32-byte hash of the finalized block (forkchoice). */
  finalizedBlock: 'LastFinalized',
  /** number(8) ‖ hash(32) of the last block whose state was persisted: where recovery restarts after a crash. */
  lastPersisted: 'LastPersisted',
  /** uint64 big-endian number of the oldest block whose transactions are indexed. */
  txIndexTail: 'TransactionIndexTail',
  /** number(8) ‖ hash(32) of the newest block in the log index. */
  logIndexHead: 'LogIndexHead',
  /** uint64 big-endian number of the oldest block in the log index. */
  logIndexTail: 'LogIndexTail',
  /** utf-8 --state.scheme the database was created with ('hash' or 'path'). */
  stateScheme: 'StateScheme',
  /** uint64 big-endian: state roots of canonical blocks below this number have been pruned (gcmode full). */
  statePrunedBelow: 'StatePrunedBelow',
} as const;

export type MetaName = (typeof MetaKey)[keyof typeof MetaKey];

export const HASH_LENGTH = 32;
export const ADDRESS_LENGTH = 20;
export const NUMBER_LENGTH = 8;

const utf8 = new TextEncoder();

export function checkHash(hash: Uint8Array, what = 'hash'): void {
  if (!(hash instanceof Uint8Array) || hash.length !== HASH_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `${what} must be ${HASH_LENGTH} bytes`);
}

export function checkAddress(address: Uint8Array): void {
  if (!(address instanceof Uint8Array) || address.length !== ADDRESS_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `address must be ${ADDRESS_LENGTH} bytes`);
}

export function checkNumber(n: number, what = 'block number'): void {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new TernError(DbErrorCode.invalidArgument, `${what} must be a non-negative safe integer: ${n}`);
}

/** 8-byte big-endian encoding of a block number. */
export function encodeNumber(n: number): Uint8Array {
  checkNumber(n);
  const out = new Uint8Array(NUMBER_LENGTH);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

export function decodeNumber(b: Uint8Array, offset = 0): number {
  if (b.length < offset + NUMBER_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `stored block number is ${b.length - offset} bytes, not 8`);
  const v = new DataView(b.buffer, b.byteOffset + offset, NUMBER_LENGTH).getBigUint64(0);
  if (v > BigInt(Number.MAX_SAFE_INTEGER))
    throw new TernError(DbErrorCode.invalidArgument, `stored block number ${v} exceeds the safe integer range`);
  return Number(v);
}

function key(prefix: number, ...parts: Uint8Array[]): Uint8Array {
  let len = 1;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  out[0] = prefix;
  let o = 1;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** 'h' number hash */
export function headerKey(number: number, hash: Uint8Array): Uint8Array {
  checkHash(hash);
  return key(TablePrefix.header, encodeNumber(number), hash);
}

/** 'h' number: the prefix of every header stored at one height (canonical and side chains). */
export function headerNumberPrefix(number: number): Uint8Array {
  return key(TablePrefix.header, encodeNumber(number));
}

/** 'n' number */
export function canonicalHashKey(number: number): Uint8Array {
  return key(TablePrefix.canonicalHash, encodeNumber(number));
}

/** 'H' hash */
export function headerNumberKey(hash: Uint8Array): Uint8Array {
  checkHash(hash);
  return key(TablePrefix.headerNumber, hash);
}

/** 'b' number hash */
export function bodyKey(number: number, hash: Uint8Array): Uint8Array {
  checkHash(hash);
  return key(TablePrefix.body, encodeNumber(number), hash);
}

/** 'r' number hash */
export function receiptsKey(number: number, hash: Uint8Array): Uint8Array {
  checkHash(hash);
  return key(TablePrefix.receipts, encodeNumber(number), hash);
}

/** 'l' txHash */
export function txLookupKey(txHash: Uint8Array): Uint8Array {
  checkHash(txHash, 'transaction hash');
  return key(TablePrefix.txLookup, txHash);
}

/** 'a' address */
export function accountKey(address: Uint8Array): Uint8Array {
  checkAddress(address);
  return key(TablePrefix.account, address);
}

/** 'o' address slot */
export function storageKey(address: Uint8Array, slot: Uint8Array): Uint8Array {
  checkAddress(address);
  checkHash(slot, 'storage slot');
  return key(TablePrefix.storage, address, slot);
}

/** 'o' address: the prefix of one account's storage. */
export function storagePrefix(address: Uint8Array): Uint8Array {
  checkAddress(address);
  return key(TablePrefix.storage, address);
}

/** 'c' codeHash */
export function codeKey(codeHash: Uint8Array): Uint8Array {
  checkHash(codeHash, 'code hash');
  return key(TablePrefix.code, codeHash);
}

/** 'm' name */
export function metaKey(name: MetaName): Uint8Array {
  return key(TablePrefix.meta, utf8.encode(name));
}

/** The one-byte prefix of a table, for iterating all of it. */
export function tablePrefix(prefix: number): Uint8Array {
  return Uint8Array.of(prefix);
}

/** 'd' number hash */
export function reverseChangesKey(number: number, hash: Uint8Array): Uint8Array {
  checkHash(hash);
  return key(TablePrefix.reverseChanges, encodeNumber(number), hash);
}

/** 'f' number hash */
export function forwardChangesKey(number: number, hash: Uint8Array): Uint8Array {
  checkHash(hash);
  return key(TablePrefix.forwardChanges, encodeNumber(number), hash);
}

/** Log index kinds ('i' table): the address, a topic at positions 0..3, or "the block has logs". */
export const LogIndexKind = { address: 0, topic0: 1, anyLog: 0xff } as const;

/** 'i' kind value number */
export function logIndexKey(kind: number, value: Uint8Array, number: number): Uint8Array {
  return key(TablePrefix.logIndex, Uint8Array.of(kind), value, encodeNumber(number));
}

/** 'i' kind value: the prefix of one address's or topic's block list. */
export function logIndexPrefix(kind: number, value: Uint8Array): Uint8Array {
  return key(TablePrefix.logIndex, Uint8Array.of(kind), value);
}

/** 'p' hash */
export function preimageKey(hash: Uint8Array): Uint8Array {
  checkHash(hash);
  return key(TablePrefix.preimage, hash);
}
