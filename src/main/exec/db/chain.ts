// Accessors of the chain tables (see schema.ts), after geth's core/rawdb: raw bytes in, raw bytes out — header,
// body and receipt decoding lives in primitives/. Reads take the live store, a snapshot, or either of them paired
// with the ancient store; block data of frozen numbers is read from the ancient store transparently. Writes go into a
// WriteBatch (the caller commits), except the two maintenance jobs at the end, which commit their own batches.

import { DbErrorCode, type KVReader, type KVStore, type WriteBatch } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import { equalBytes } from '../../primitives/bytes.js';
import type { BlockCache } from './blockCache.js';
import type { AncientBlock, AncientReader, AncientTable, Freezer } from './freezer.js';
import {
  bodyKey,
  canonicalHashKey,
  checkHash,
  checkNumber,
  decodeNumber,
  encodeNumber,
  forwardChangesKey,
  HASH_LENGTH,
  headerKey,
  headerNumberKey,
  headerNumberPrefix,
  MetaKey,
  type MetaName,
  metaKey,
  NUMBER_LENGTH,
  receiptsKey,
  reverseChangesKey,
  SCHEMA_VERSION,
  txLookupKey,
} from './schema.js';

/** The key-value view (live store or snapshot) together with the ancient store, when there is one. */
export interface ChainReader {
  readonly kv: KVReader;
  readonly ancients?: AncientReader | undefined;
  /** The database's decoded-block cache (./blockCache.ts), for readers that decode (chain/chainStore.ts). */
  readonly blockCache?: BlockCache | undefined;
  /** Archived history (era1 files, --datadir.era) serving canonical blocks the database no longer holds. */
  readonly history?: HistoryReader | undefined;
}

/** Canonical blocks kept outside the database (exec/era/store.ts); every method is by canonical block number. */
export interface HistoryReader {
  canonicalHash(number: number): Uint8Array | undefined;
  numberOf(hash: Uint8Array): number | undefined;
  headerRlp(number: number): Uint8Array | undefined;
  bodyRlp(number: number): Uint8Array | undefined;
  receiptsRlp(number: number): Uint8Array | undefined;
}

/** What the read accessors accept: a bare key-value view (no ancient store) or a ChainReader. */
export type DbReader = KVReader | ChainReader;

function kvOf(r: DbReader): KVReader {
  return 'kv' in r ? r.kv : r;
}

function ancientsOf(r: DbReader): AncientReader | undefined {
  return 'kv' in r ? r.ancients : undefined;
}

/** Item `table` of block (number, hash) from the ancient store, if that block is frozen and canonical there. */
function readAncient(r: DbReader, table: AncientTable, number: number, hash: Uint8Array): Uint8Array | undefined {
  const a = ancientsOf(r);
  if (a === undefined) return undefined;
  const frozen = a.ancient('hashes', number);
  if (frozen === undefined || !equalBytes(frozen, hash)) return undefined;
  return table === 'hashes' ? frozen : a.ancient(table, number);
}

/** Item `table` of canonical block (number, hash) from the archived history, if it holds that block. */
function readHistory(r: DbReader, table: 'headers' | 'bodies' | 'receipts', number: number, hash: Uint8Array) {
  const h = 'kv' in r ? r.history : undefined;
  if (h === undefined) return undefined;
  const archived = h.canonicalHash(number);
  if (archived === undefined || !equalBytes(archived, hash)) return undefined;
  return table === 'headers' ? h.headerRlp(number) : table === 'bodies' ? h.bodyRlp(number) : h.receiptsRlp(number);
}

function hashValue(v: Uint8Array | undefined, what: string): Uint8Array | undefined {
  if (v !== undefined && v.length !== HASH_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `stored ${what} is ${v.length} bytes, not ${HASH_LENGTH}`);
  return v;
}

// ---- canonical chain ---------------------------------------------------------------------------------------------

export function readCanonicalHash(r: DbReader, number: number): Uint8Array | undefined {
  const v = kvOf(r).get(canonicalHashKey(number));
  if (v !== undefined) return hashValue(v, 'canonical hash');
  return ancientsOf(r)?.ancient('hashes', number) ?? ('kv' in r ? r.history?.canonicalHash(number) : undefined);
}

export function writeCanonicalHash(b: WriteBatch, number: number, hash: Uint8Array): void {
  checkHash(hash);
  b.put(canonicalHashKey(number), hash);
}

export function deleteCanonicalHash(b: WriteBatch, number: number): void {
  b.delete(canonicalHashKey(number));
}

// ---- headers -----------------------------------------------------------------------------------------------------

export function readHeaderNumber(r: DbReader, hash: Uint8Array): number | undefined {
  const v = kvOf(r).get(headerNumberKey(hash));
  if (v === undefined) return 'kv' in r ? r.history?.numberOf(hash) : undefined;
  if (v.length !== NUMBER_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `stored header number is ${v.length} bytes, not 8`);
  return decodeNumber(v);
}

export function readHeaderRlp(r: DbReader, number: number, hash: Uint8Array): Uint8Array | undefined {
  return (
    kvOf(r).get(headerKey(number, hash)) ??
    readAncient(r, 'headers', number, hash) ??
    readHistory(r, 'headers', number, hash)
  );
}

export function hasHeader(r: DbReader, number: number, hash: Uint8Array): boolean {
  return kvOf(r).has(headerKey(number, hash)) || readAncient(r, 'hashes', number, hash) !== undefined;
}

/** The header of the canonical block at `number`. */
export function readCanonicalHeaderRlp(r: DbReader, number: number): Uint8Array | undefined {
  const hash = readCanonicalHash(r, number);
  return hash === undefined ? undefined : readHeaderRlp(r, number, hash);
}

/** Stores a header and its hash → number entry (as geth's WriteHeader). */
export function writeHeaderRlp(b: WriteBatch, number: number, hash: Uint8Array, rlp: Uint8Array): void {
  b.put(headerKey(number, hash), rlp);
  b.put(headerNumberKey(hash), encodeNumber(number));
}

/** Deletes a header and its hash → number entry. */
export function deleteHeader(b: WriteBatch, number: number, hash: Uint8Array): void {
  b.delete(headerKey(number, hash));
  b.delete(headerNumberKey(hash));
}

/** Hashes of every header stored at `number` in the key-value store (canonical and side chains), in key order. */
export function readAllHashes(r: DbReader, number: number): Uint8Array[] {
  const prefix = headerNumberPrefix(number);
  const out: Uint8Array[] = [];
  for (const { key } of kvOf(r).iterate({ prefix })) {
    if (key.length === prefix.length + HASH_LENGTH) out.push(key.slice(prefix.length));
  }
  return out;
}

// ---- bodies and receipts -----------------------------------------------------------------------------------------

export function readBodyRlp(r: DbReader, number: number, hash: Uint8Array): Uint8Array | undefined {
  return (
    kvOf(r).get(bodyKey(number, hash)) ??
    readAncient(r, 'bodies', number, hash) ??
    readHistory(r, 'bodies', number, hash)
  );
}

export function hasBody(r: DbReader, number: number, hash: Uint8Array): boolean {
  return kvOf(r).has(bodyKey(number, hash)) || readAncient(r, 'hashes', number, hash) !== undefined;
}

export function writeBodyRlp(b: WriteBatch, number: number, hash: Uint8Array, rlp: Uint8Array): void {
  b.put(bodyKey(number, hash), rlp);
}

export function deleteBody(b: WriteBatch, number: number, hash: Uint8Array): void {
  b.delete(bodyKey(number, hash));
}

export function readReceiptsRlp(r: DbReader, number: number, hash: Uint8Array): Uint8Array | undefined {
  return (
    kvOf(r).get(receiptsKey(number, hash)) ??
    readAncient(r, 'receipts', number, hash) ??
    readHistory(r, 'receipts', number, hash)
  );
}

export function hasReceipts(r: DbReader, number: number, hash: Uint8Array): boolean {
  return kvOf(r).has(receiptsKey(number, hash)) || readAncient(r, 'hashes', number, hash) !== undefined;
}

export function writeReceiptsRlp(b: WriteBatch, number: number, hash: Uint8Array, rlp: Uint8Array): void {
  b.put(receiptsKey(number, hash), rlp);
}

export function deleteReceipts(b: WriteBatch, number: number, hash: Uint8Array): void {
  b.delete(receiptsKey(number, hash));
}

/** Deletes everything stored for block (number, hash): header, hash → number, body, receipts (not the canonical mark). */
export function deleteBlock(b: WriteBatch, number: number, hash: Uint8Array): void {
  deleteHeader(b, number, hash);
  deleteBody(b, number, hash);
  deleteReceipts(b, number, hash);
}

// ---- per-block state changes (reorgs; encoding owned by chain/changeset.ts) -----------------------------------

export function readReverseChanges(r: DbReader, number: number, hash: Uint8Array): Uint8Array | undefined {
  return kvOf(r).get(reverseChangesKey(number, hash));
}

export function writeReverseChanges(b: WriteBatch, number: number, hash: Uint8Array, data: Uint8Array): void {
  b.put(reverseChangesKey(number, hash), data);
}

export function deleteReverseChanges(b: WriteBatch, number: number, hash: Uint8Array): void {
  b.delete(reverseChangesKey(number, hash));
}

export function readForwardChanges(r: DbReader, number: number, hash: Uint8Array): Uint8Array | undefined {
  return kvOf(r).get(forwardChangesKey(number, hash));
}

export function writeForwardChanges(b: WriteBatch, number: number, hash: Uint8Array, data: Uint8Array): void {
  b.put(forwardChangesKey(number, hash), data);
}

export function deleteForwardChanges(b: WriteBatch, number: number, hash: Uint8Array): void {
  b.delete(forwardChangesKey(number, hash));
}

// ---- transaction lookup ------------------------------------------------------------------------------------------

export interface TxLookup {
  blockNumber: number;
  /** Position of the transaction in its block. */
  index: number;
}

const TX_LOOKUP_LENGTH = NUMBER_LENGTH + 4;

/**
 * Where a transaction is: block number and index. The entry is not tied to a block hash; a caller serving it checks
 * the block is canonical (after a reorg the new block's entries overwrite the old ones).
 */
export function readTxLookup(r: DbReader, txHash: Uint8Array): TxLookup | undefined {
  const v = kvOf(r).get(txLookupKey(txHash));
  if (v === undefined) return undefined;
  if (v.length !== TX_LOOKUP_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `stored transaction lookup is ${v.length} bytes, not 12`);
  return { blockNumber: decodeNumber(v), index: new DataView(v.buffer, v.byteOffset + NUMBER_LENGTH, 4).getUint32(0) };
}

/** Indexes the transactions of block `blockNumber`, `txHashes` in block order. */
export function writeTxLookups(b: WriteBatch, blockNumber: number, txHashes: readonly Uint8Array[]): void {
  const number = encodeNumber(blockNumber);
  txHashes.forEach((h, i) => {
    const v = new Uint8Array(TX_LOOKUP_LENGTH);
    v.set(number);
    new DataView(v.buffer).setUint32(NUMBER_LENGTH, i);
    b.put(txLookupKey(h), v);
  });
}

export function deleteTxLookups(b: WriteBatch, txHashes: readonly Uint8Array[]): void {
  for (const h of txHashes) b.delete(txLookupKey(h));
}

/** Oldest block whose transactions are indexed; undefined when indexing has not started. */
export function readTxIndexTail(r: DbReader): number | undefined {
  const v = kvOf(r).get(metaKey(MetaKey.txIndexTail));
  return v === undefined ? undefined : decodeNumber(v);
}

/** The key of the transaction index tail (for deleting it). */
export function txIndexTailKey(): Uint8Array {
  return metaKey(MetaKey.txIndexTail);
}

export function writeTxIndexTail(b: WriteBatch, number: number): void {
  b.put(metaKey(MetaKey.txIndexTail), encodeNumber(number));
}

/**
 * The tail the index should have with `head` as the head block and `history` the --history.transactions limit: the
 * `history` most recent blocks are indexed; 0 indexes the whole chain.
 */
export function txIndexTail(head: number, history: number): number {
  checkNumber(head, 'head block number');
  checkNumber(history, 'transaction history');
  if (history === 0) return 0;
  return Math.max(0, head - history + 1);
}

// ---- head markers and metadata -----------------------------------------------------------------------------------

function readMetaHash(r: DbReader, name: MetaName): Uint8Array | undefined {
  return hashValue(kvOf(r).get(metaKey(name)), name);
}

function writeMetaHash(b: WriteBatch, name: MetaName, hash: Uint8Array): void {
  checkHash(hash);
  b.put(metaKey(name), hash);
}

export function readHeadHeaderHash(r: DbReader): Uint8Array | undefined {
  return readMetaHash(r, MetaKey.headHeader);
}

export function writeHeadHeaderHash(b: WriteBatch, hash: Uint8Array): void {
  writeMetaHash(b, MetaKey.headHeader, hash);
}

export function readHeadBlockHash(r: DbReader): Uint8Array | undefined {
  return readMetaHash(r, MetaKey.headBlock);
}

export function writeHeadBlockHash(b: WriteBatch, hash: Uint8Array): void {
  writeMetaHash(b, MetaKey.headBlock, hash);
}

export function readSafeBlockHash(r: DbReader): Uint8Array | undefined {
  return readMetaHash(r, MetaKey.safeBlock);
}

export function writeSafeBlockHash(b: WriteBatch, hash: Uint8Array): void {
  writeMetaHash(b, MetaKey.safeBlock, hash);
}

export function readFinalizedBlockHash(r: DbReader): Uint8Array | undefined {
  return readMetaHash(r, MetaKey.finalizedBlock);
}

export function writeFinalizedBlockHash(b: WriteBatch, hash: Uint8Array): void {
  writeMetaHash(b, MetaKey.finalizedBlock, hash);
}

export function readGenesisHash(r: DbReader): Uint8Array | undefined {
  return readMetaHash(r, MetaKey.genesisHash);
}

export function writeGenesisHash(b: WriteBatch, hash: Uint8Array): void {
  writeMetaHash(b, MetaKey.genesisHash, hash);
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

/** The chain configuration as stored: JSON text (parsing it is the chain module's business). */
export function readChainConfig(r: DbReader): string | undefined {
  const v = kvOf(r).get(metaKey(MetaKey.chainConfig));
  return v === undefined ? undefined : utf8Decoder.decode(v);
}

export function writeChainConfig(b: WriteBatch, json: string): void {
  b.put(metaKey(MetaKey.chainConfig), utf8Encoder.encode(json));
}

export interface BlockRef {
  number: number;
  hash: Uint8Array;
}

/** The last block whose state was persisted; where recovery after a crash starts. */
export function readLastPersisted(r: DbReader): BlockRef | undefined {
  const v = kvOf(r).get(metaKey(MetaKey.lastPersisted));
  if (v === undefined) return undefined;
  if (v.length !== NUMBER_LENGTH + HASH_LENGTH)
    throw new TernError(DbErrorCode.invalidArgument, `stored last persisted block is ${v.length} bytes, not 40`);
  return { number: decodeNumber(v), hash: v.slice(NUMBER_LENGTH) };
}

export function writeLastPersisted(b: WriteBatch, number: number, hash: Uint8Array): void {
  checkHash(hash);
  const v = new Uint8Array(NUMBER_LENGTH + HASH_LENGTH);
  v.set(encodeNumber(number));
  v.set(hash, NUMBER_LENGTH);
  b.put(metaKey(MetaKey.lastPersisted), v);
}

export function readSchemaVersion(r: DbReader): number | undefined {
  const v = kvOf(r).get(metaKey(MetaKey.schemaVersion));
  if (v === undefined) return undefined;
  if (v.length !== 4) throw new TernError(DbErrorCode.schemaUnsupported, 'stored schema version is malformed');
  return new DataView(v.buffer, v.byteOffset, 4).getUint32(0);
}

export function writeSchemaVersion(b: WriteBatch, version: number = SCHEMA_VERSION): void {
  const v = new Uint8Array(4);
  new DataView(v.buffer).setUint32(0, version);
  b.put(metaKey(MetaKey.schemaVersion), v);
}

export function readEngineName(r: DbReader): string | undefined {
  const v = kvOf(r).get(metaKey(MetaKey.engine));
  return v === undefined ? undefined : utf8Decoder.decode(v);
}

export function writeEngineName(b: WriteBatch, engine: string): void {
  b.put(metaKey(MetaKey.engine), utf8Encoder.encode(engine));
}

// ---- maintenance: freezing old blocks, trimming the transaction index ---------------------------------------------

export interface FreezeOptions {
  /** Blocks at least this far below the head block are frozen (geth's FullImmutabilityThreshold). */
  threshold?: number;
  /** Most blocks moved by one call. */
  maxBlocks?: number;
}

export const freezeDefaults = { threshold: 90_000, maxBlocks: 1_000 } as const;

/**
 * Moves canonical blocks older than the threshold (and not above the finalized block, when one is recorded) from the
 * key-value store into the ancient store: they are appended and synced first, then deleted from the key-value store
 * along with any side-chain blocks at the same heights, in one batch. The hash → number entries of canonical blocks
 * stay, and block 0 stays in the key-value store too. Every canonical block frozen must have its header, body and
 * receipts stored. Returns the number of blocks frozen; call again while it returns maxBlocks.
 */
export async function freezeBlocks(
  db: { readonly kv: KVStore; readonly ancients: Freezer | undefined; readonly blockCache?: BlockCache | undefined },
  opts: FreezeOptions = {},
): Promise<number> {
  const threshold = opts.threshold ?? freezeDefaults.threshold;
  const maxBlocks = opts.maxBlocks ?? freezeDefaults.maxBlocks;
  checkNumber(threshold, 'freeze threshold');
  checkNumber(maxBlocks, 'freeze batch size');
  const { kv, ancients } = db;
  if (ancients === undefined || maxBlocks === 0) return 0;
  const headHash = readHeadBlockHash(kv);
  const head = headHash === undefined ? undefined : readHeaderNumber(kv, headHash);
  if (head === undefined || head < threshold) return 0;
  let limit = head - threshold + 1;
  const finalizedHash = readFinalizedBlockHash(kv);
  const finalized = finalizedHash === undefined ? undefined : readHeaderNumber(kv, finalizedHash);
  if (finalized !== undefined) limit = Math.min(limit, finalized + 1);
  const from = ancients.ancients();
  const to = Math.min(limit, from + maxBlocks);
  if (to <= from) return 0;

  const blocks: AncientBlock[] = [];
  for (let n = from; n < to; n++) {
    const hash = kv.get(canonicalHashKey(n));
    if (hash === undefined)
      throw new TernError(DbErrorCode.missingData, `cannot freeze block ${n}: no canonical hash stored`);
    const headers = kv.get(headerKey(n, hash));
    const bodies = kv.get(bodyKey(n, hash));
    const receipts = kv.get(receiptsKey(n, hash));
    if (headers === undefined || bodies === undefined || receipts === undefined)
      throw new TernError(
        DbErrorCode.missingData,
        `cannot freeze block ${n}: its ${headers === undefined ? 'header' : bodies === undefined ? 'body' : 'receipts'} is missing`,
      );
    blocks.push({ hashes: hash, headers, bodies, receipts });
  }
  await ancients.append(from, blocks);

  const batch = kv.batch();
  const deleted: Uint8Array[] = [];
  for (let n = Math.max(from, 1); n < to; n++) {
    const canonical = blocks[n - from]!.hashes;
    batch.delete(canonicalHashKey(n));
    for (const hash of readAllHashes(kv, n)) {
      if (equalBytes(hash, canonical)) {
        deleteBody(batch, n, hash);
        deleteReceipts(batch, n, hash);
        batch.delete(headerKey(n, hash));
      } else {
        deleteBlock(batch, n, hash);
        deleted.push(hash);
      }
    }
  }
  await batch.commit();
  // Frozen canonical blocks stay readable (from the ancient store); the side blocks beside them are gone.
  for (const hash of deleted) db.blockCache?.delete(hash);
  return to - from;
}

export interface UnindexOptions {
  /** The head block number. */
  head: number;
  /** --history.transactions: blocks kept indexed; 0 keeps the whole chain. */
  history: number;
  /** The transaction hashes of a body (decoding lives in primitives/). */
  txHashes: (bodyRlp: Uint8Array, blockNumber: number) => readonly Uint8Array[];
  /** Most blocks unindexed by one call; default 1000. */
  maxBlocks?: number;
}

/**
 * Moves the transaction index tail up to txIndexTail(head, history), deleting the lookup entries of the canonical
 * blocks it passes, in one batch with the new tail. Returns the number of blocks unindexed. (Indexing more blocks when
 * the limit grows is the indexer's job; this only trims.)
 */
export async function unindexTransactions(
  db: { readonly kv: KVStore; readonly ancients?: AncientReader | undefined },
  opts: UnindexOptions,
): Promise<number> {
  const target = txIndexTail(opts.head, opts.history);
  const tail = readTxIndexTail(db);
  if (tail === undefined || target <= tail) return 0;
  const maxBlocks = opts.maxBlocks ?? 1_000;
  checkNumber(maxBlocks, 'unindex batch size');
  const to = Math.min(target, tail + maxBlocks);
  if (to <= tail) return 0;
  const batch = db.kv.batch();
  for (let n = tail; n < to; n++) {
    const hash = readCanonicalHash(db, n);
    const body = hash === undefined ? undefined : readBodyRlp(db, n, hash);
    if (body !== undefined) deleteTxLookups(batch, opts.txHashes(body, n));
  }
  writeTxIndexTail(batch, to);
  await batch.commit();
  return to - tail;
}
