// The chain in the database: genesis initialisation, head tracking, block/receipt reads by number and hash, and
// moving the head. Block import (importer.ts) writes through commitBlock (canonical extension), commitBlocks (a run
// of canonical extensions, the pipelined import's group commit) or commitSideBlock (a block stored beside the chain,
// executed but not canonical), each one atomic batch.
//
// The flat state always matches the head block. Each canonical block keeps its reverse state changes (for the
// latest `reorgHistory` blocks), each side block its forward changes; setHead unwinds the canonical blocks down
// to the common ancestor and applies the new branch, one atomic batch per block, so a crash leaves a consistent
// database whose head is some block on the way (the consensus client repeats its forkchoice update).
//
// Deferred trie nodes (commitBlock with `deferNodes`, the Engine API's forkchoiceUpdated to a held block): the head
// batch holds the flat state, reverse changes, code, canonical index and head; the block's new trie nodes follow in
// a second batch, started once the first has committed, while the consensus client's answer is already on its way
// and the next payload executes. That batch also moves the last-persisted marker (chain.writeLastPersisted) to the
// block, so "head ≠ last persisted" means "the head's trie nodes are not in the database yet": true only for the
// one node write in flight (the next commit waits for it), or after a crash that hit it, which
// recoverUnpersistedHead() repairs at start-up by unwinding the head to the last persisted block.

import type { KVReader, WriteBatch } from '../../common/db/interface.js';
import { StagedBatch } from '../../common/db/stagedBatch.js';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { keccak256 } from '../../native/keccak.js';
import { type Block, decodeBlock, encodeBody } from '../../primitives/block/block.js';
import { decodeHeader, encodeHeader, type Header, headerHash } from '../../primitives/block/header.js';
import { equalBytes, toHex as hex } from '../../primitives/bytes.js';
import { type ChainConfig, parseChainConfig } from '../../primitives/chainConfig.js';
import { decodeReceipt, encodeReceipt, type Receipt } from '../../primitives/receipt/receipt.js';
import { asList, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { StateCommitment } from '../../primitives/trie/commitment.js';
import type { PackedNodes } from '../../primitives/trie/interface.js';
import { eachNode } from '../../primitives/trie/packedNodes.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import * as chain from '../db/chain.js';
import type { Database } from '../db/open.js';
import { readTrieNode, writeCode, writeTrieNode } from '../db/state.js';
import type { StateDiff } from '../state/interface.js';
import { DbStateReader, writeStateDiff } from '../state/stateStore.js';
import { applyChanges, changesFromDiff, decodeChanges, encodeChanges, forwardFromReverse } from './changeset.js';
import { type Genesis, genesisHeader } from './genesis.js';
import { headEvents } from './headEvents.js';
import type { PreimageRecorder } from './preimages.js';

export interface ChainHead {
  number: bigint;
  hash: Uint8Array;
  header: Header;
}

/** What one imported block writes besides its header and body. */
export interface BlockCommit {
  block: Block;
  hash: Uint8Array;
  receipts: readonly Receipt[];
  diff: StateDiff;
  storageRoots: ReadonlyMap<string, Uint8Array>;
  newNodes: PackedNodes;
  /** The receipts' consensus encodings (encodeReceipt), when the caller has them already. */
  encodedReceipts?: readonly Uint8Array[] | undefined;
  /** commitBlock only: header, body and receipts are stored already (commitBlockData), only the rest is written. */
  dataStored?: boolean;
}

export interface ChainStoreOptions {
  /** How many recent canonical blocks keep the reverse state changes a reorg needs (the deepest reorg). */
  reorgHistory?: number;
  /** --vmdebug / --cache.preimages: keccak preimages written with each committed block (./preimages.ts). */
  preimages?: PreimageRecorder | undefined;
}

export const chainStoreDefaults = { reorgHistory: 1024 } as const;

/**
 * True when the reader's head block has its trie nodes still on their way to the database (deferred node write in
 * flight, ChainStore.commitBlock): a trie walk from the head's state root may then miss nodes for a moment.
 */
export function headTriePending(r: chain.ChainReader): boolean {
  const head = chain.readHeadBlockHash(r);
  const persisted = chain.readLastPersisted(r);
  return head !== undefined && persisted !== undefined && !equalBytes(head, persisted.hash);
}

/** What setHead did. */
export interface HeadChange {
  /** Blocks taken off the canonical chain. */
  unwound: number;
  /** Blocks made canonical. */
  applied: number;
}

// ---- decoded reads through the block cache (--cache.database, ../db/blockCache.ts) ---------------------------------
//
// Any ChainReader works: the live database or a snapshot of it (./chainView.ts's views). A hit counts only when
// the reader itself holds the block (its hash → number entry, one key-value read), so a snapshot older than the
// block, or a reader after the block's deletion, never sees it from the cache. What a reorg changes (the canonical
// index, the head) is read from the reader every time; entries by hash never go stale. Each caller gets its own
// shallow copy: cached objects are shared, and a caller mutating a header or a receipt must not change the cache.

const copyHeader = (h: Header): Header => ({ ...h });

function copyBlock(b: Block): Block {
  const out: Block = {
    ...b,
    header: { ...b.header },
    transactions: [...b.transactions],
    uncles: b.uncles.map(copyHeader),
  };
  if (b.withdrawals !== undefined) out.withdrawals = b.withdrawals.map((w) => ({ ...w }));
  return out;
}

const copyReceipts = (rs: readonly Receipt[]): Receipt[] =>
  rs.map((r) => ({ ...r, logs: r.logs.map((l) => ({ ...l, topics: [...l.topics] })) }));

/** The header stored under `hash`, decoded once per cache lifetime. */
export function readHeader(r: chain.ChainReader, hash: Uint8Array): Header | undefined {
  const n = chain.readHeaderNumber(r, hash);
  if (n === undefined) return undefined;
  const cached = r.blockCache?.get<Header>('header', hash);
  if (cached !== undefined) return copyHeader(cached);
  const rlp = chain.readHeaderRlp(r, n, hash);
  if (rlp === undefined) return undefined;
  const header = decodeHeader(rlp);
  r.blockCache?.set('header', hash, copyHeader(header));
  return header;
}

/** The whole block (header and body) stored under `hash`. */
export function readBlock(r: chain.ChainReader, hash: Uint8Array): Block | undefined {
  const n = chain.readHeaderNumber(r, hash);
  if (n === undefined) return undefined;
  const cached = r.blockCache?.get<Block>('block', hash);
  if (cached !== undefined) return copyBlock(cached);
  const headerRlp = chain.readHeaderRlp(r, n, hash);
  const bodyRlp = chain.readBodyRlp(r, n, hash);
  if (headerRlp === undefined || bodyRlp === undefined) return undefined;
  const body = asList(rlpDecode(bodyRlp), 'body');
  const block = decodeBlock(rlpEncode([rlpDecode(headerRlp), ...body] as Parameters<typeof rlpEncode>[0]));
  r.blockCache?.set('block', hash, copyBlock(block));
  return block;
}

/** The consensus receipts of block (number, hash); undefined when the reader does not hold that block. */
export function readReceipts(r: chain.ChainReader, number: bigint, hash: Uint8Array): Receipt[] | undefined {
  if (number < 0n || number > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
  const n = Number(number);
  // Only blocks the reader holds are served from (and put in) the cache.
  const cache = r.blockCache !== undefined && chain.readHeaderNumber(r, hash) === n ? r.blockCache : undefined;
  const cached = cache?.get<Receipt[]>('receipts', hash);
  if (cached !== undefined) return copyReceipts(cached);
  const rlp = chain.readReceiptsRlp(r, n, hash);
  if (rlp === undefined) return undefined;
  const receipts = asList(rlpDecode(rlp), 'receipts').map((item) =>
    decodeReceipt(item instanceof Uint8Array ? item : rlpEncode(item as Parameters<typeof rlpEncode>[0])),
  );
  cache?.set('receipts', hash, copyReceipts(receipts));
  return receipts;
}

/**
 * Queues the deletion of every row kept for block (number, hash) beside the chain: header and its hash → number
 * entry, body, receipts, forward and reverse state changes (the per-block rows of schema.ts; code, trie nodes and
 * preimages are shared by hash, the state pruner owns those). For a block that can no longer become canonical
 * (history/sidePruner.ts); the caller drops it from the block cache once the batch is committed.
 */
export function deleteSideBlock(b: WriteBatch, number: number, hash: Uint8Array): void {
  chain.deleteBlock(b, number, hash);
  chain.deleteForwardChanges(b, number, hash);
  chain.deleteReverseChanges(b, number, hash);
}

/**
 * Start-up repair of a head whose trie nodes a crash kept from the database (ChainStore.recoverUnpersistedHead), with
 * one log line when it did anything; the consensus client sends the unwound blocks again.
 */
export async function recoverHead(store: ChainStore, logger: Logger): Promise<void> {
  const unwound = await store.recoverUnpersistedHead();
  if (unwound.length === 0) return;
  const head = store.head();
  logger.warn('Head trie nodes were not written before the last shutdown; rolled the state back', {
    unwound: unwound.map(String).join(','),
    head: head.number,
    hash: hex(head.hash),
  });
}

/**
 * Resolves once the database's head has its trie nodes (no deferred node write in flight, as another thread sees
 * it); DB_TIMEOUT after `timeoutMs`, which only a stuck or failed write reaches.
 */
export async function headTrieWritten(db: Database, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    db.kv.renewReads?.();
    if (!headTriePending(db)) return;
    if (performance.now() > deadline)
      throw new TernError('DB_TIMEOUT', `the head's trie nodes were not written within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

export class ChainStore {
  private cachedHead: ChainHead | undefined;
  private cachedConfig: ChainConfig | undefined;
  private readonly reorgHistory: number;
  /** The deferred trie-node write of the head, until it has committed (commitBlock with `deferNodes`). */
  #nodeWrite: Promise<void> | undefined;
  /** Its failure, reported once by the next nodesWritten(). */
  #nodeWriteError: unknown;
  /** The preimage recorder (--vmdebug, --cache.preimages); the importer and builder hash KECCAK256 through it. */
  readonly preimages: PreimageRecorder | undefined;

  constructor(
    readonly db: Database,
    opts: ChainStoreOptions = {},
  ) {
    this.reorgHistory = opts.reorgHistory ?? chainStoreDefaults.reorgHistory;
    this.preimages = opts.preimages;
  }

  /** The chain config stored by init; throws when the database has no genesis yet. */
  config(): ChainConfig {
    if (this.cachedConfig) return this.cachedConfig;
    const json = chain.readChainConfig(this.db);
    if (json === undefined)
      throw new TernError(
        'CHAIN_NOT_INITIALISED',
        'database has no genesis: run `tern-exec init <genesis.json>` first',
      );
    this.cachedConfig = parseChainConfig(JSON.parse(json));
    return this.cachedConfig;
  }

  genesisHash(): Uint8Array | undefined {
    return chain.readGenesisHash(this.db);
  }

  head(): ChainHead {
    if (this.cachedHead) return this.cachedHead;
    const hash = chain.readHeadBlockHash(this.db);
    if (hash === undefined)
      throw new TernError(
        'CHAIN_NOT_INITIALISED',
        'database has no head block: run `tern-exec init <genesis.json>` first',
      );
    const header = this.headerByHash(hash);
    if (!header) throw new TernError('DB_CORRUPT', `head block ${hex(hash)} has no header`);
    this.cachedHead = { number: header.number, hash, header };
    return this.cachedHead;
  }

  /** Drops the cached head so the next head() reads the database: another thread (the executor's) moved it. */
  reloadHead(): void {
    this.cachedHead = undefined;
  }

  headerByHash(hash: Uint8Array): Header | undefined {
    return readHeader(this.db, hash);
  }

  canonicalHash(number: bigint): Uint8Array | undefined {
    return number < 0n || number > BigInt(Number.MAX_SAFE_INTEGER)
      ? undefined
      : chain.readCanonicalHash(this.db, Number(number));
  }

  headerByNumber(number: bigint): Header | undefined {
    const hash = this.canonicalHash(number);
    return hash === undefined ? undefined : this.headerByHash(hash);
  }

  blockByHash(hash: Uint8Array): Block | undefined {
    return readBlock(this.db, hash);
  }

  blockByNumber(number: bigint): Block | undefined {
    const hash = this.canonicalHash(number);
    return hash === undefined ? undefined : this.blockByHash(hash);
  }

  receipts(number: bigint, hash: Uint8Array): Receipt[] | undefined {
    return readReceipts(this.db, number, hash);
  }

  txLookup(txHash: Uint8Array): chain.TxLookup | undefined {
    return chain.readTxLookup(this.db, txHash);
  }

  /** A state reader over the current database contents (use a snapshot for a consistent multi-read view). */
  stateReader(): DbStateReader {
    return new DbStateReader(this.db.kv);
  }

  /**
   * Writes block 0 and its state. Idempotent for the same genesis; a different genesis already in the database
   * is refused, since it would silently fork the node onto another chain.
   */
  async initGenesis(genesis: Genesis): Promise<{ hash: Uint8Array; created: boolean }> {
    const diff: StateDiff = { accounts: new Map(), codes: new Map() };
    for (const [addr, a] of genesis.alloc) {
      const codeHash = keccak256(a.code);
      if (a.code.length > 0) diff.codes.set(hex(codeHash), a.code);
      diff.accounts.set(addr, {
        nonce: a.nonce,
        balance: a.balance,
        codeHash,
        storage: new Map(a.storage),
        storageCleared: false,
      });
    }
    const commitment = new StateCommitment(new DbStateReader(this.db.kv)).apply(EMPTY_TRIE_ROOT, diff);
    const header = genesisHeader(genesis, commitment.root);
    const hash = headerHash(header);
    const existing = this.genesisHash();
    if (existing !== undefined) {
      if (Buffer.compare(existing, hash) === 0) return { hash, created: false };
      throw new TernError(
        'GENESIS_MISMATCH',
        `database already holds a different genesis (${hex(existing)}, this file gives ${hex(hash)}); use another --datadir`,
      );
    }
    const b = this.db.kv.batch();
    writeStateDiff(b, this.db.kv, diff, commitment.storageRoots, commitment.newNodes);
    this.writeBlock(
      b,
      { header, transactions: [], uncles: [], withdrawals: header.withdrawalsRoot ? [] : undefined },
      hash,
      [],
    );
    chain.writeGenesisHash(b, hash);
    chain.writeChainConfig(b, JSON.stringify(genesis.config.raw));
    this.writeHead(b, 0n, hash);
    await b.commit();
    this.cachedHead = { number: 0n, hash, header };
    this.cachedConfig = genesis.config;
    return { hash, created: true };
  }

  private writeBlock(
    b: WriteBatch,
    block: Block,
    hash: Uint8Array,
    receipts: readonly Receipt[],
    encoded?: readonly Uint8Array[],
  ): void {
    this.writeBlockData(b, block, hash, receipts, encoded);
    this.writeCanonical(b, block, hash);
  }

  /** Header, body and receipts: what every stored block has, canonical or not. */
  private writeBlockData(
    b: WriteBatch,
    block: Block,
    hash: Uint8Array,
    receipts: readonly Receipt[],
    encoded?: readonly Uint8Array[],
  ): void {
    const n = Number(block.header.number);
    chain.writeHeaderRlp(b, n, hash, encodeHeader(block.header));
    chain.writeBodyRlp(b, n, hash, encodeBody(block));
    chain.writeReceiptsRlp(b, n, hash, rlpEncode(encoded ? [...encoded] : receipts.map((r) => encodeReceipt(r))));
  }

  /** The canonical-index and transaction-index entries of a block. */
  private writeCanonical(b: WriteBatch, block: Block, hash: Uint8Array): void {
    const n = Number(block.header.number);
    chain.writeCanonicalHash(b, n, hash);
    chain.writeTxLookups(
      b,
      n,
      block.transactions.map((t) => keccak256(t)),
    );
  }

  /**
   * Drops the reverse changes that fall out of the reorg window once block `number` is the head; `r` reads the
   * canonical index as the batch leaves it (a group of blocks may make that block canonical in the same batch).
   */
  private pruneChanges(b: WriteBatch, number: bigint, r: chain.ChainReader = this.db): void {
    const old = number - BigInt(this.reorgHistory);
    if (old < 1n || old > BigInt(Number.MAX_SAFE_INTEGER)) return;
    const hash = chain.readCanonicalHash(r, Number(old));
    if (hash === undefined) return;
    chain.deleteReverseChanges(b, Number(old), hash);
    chain.deleteForwardChanges(b, Number(old), hash);
  }

  /** The head markers; `persisted` false leaves the last-persisted marker behind (its trie nodes follow). */
  private writeHead(b: WriteBatch, number: bigint, hash: Uint8Array, persisted = true): void {
    chain.writeHeadBlockHash(b, hash);
    chain.writeHeadHeaderHash(b, hash);
    if (persisted) chain.writeLastPersisted(b, Number(number), hash);
  }

  /** Code and trie nodes of a block's commitment (content-addressed: safe to write for side blocks too). */
  private writeCodeAndNodes(b: WriteBatch, c: BlockCommit, nodes = true): void {
    for (const [hashHex, code] of c.diff.codes)
      writeCode(b, Uint8Array.from(Buffer.from(hashHex.slice(2), 'hex')), code);
    // No copies here: every WriteBatch copies what it is given.
    if (nodes) for (const [hash, rlp] of eachNode(c.newNodes)) writeTrieNode(b, hash, rlp);
    this.preimages?.write(b, c.diff);
  }

  /**
   * Persists an imported block that extends the head, its receipts and state changes (with their reverse, for
   * reorgs), and moves the head to it: one atomic batch. With `deferNodes` the block's trie nodes (and the
   * last-persisted marker) go in a second batch that this call starts but does not wait for (see the file comment);
   * nodesWritten() waits for it, and every later commit does first.
   */
  async commitBlock(c: BlockCommit, opts: { deferNodes?: boolean } = {}): Promise<void> {
    await this.nodesWritten();
    const defer = opts.deferNodes === true;
    this.checkExtends([c]);
    const b = this.db.kv.batch();
    this.stageBlock(b, this.db.kv, this.db, c, !defer);
    await b.commit();
    this.cachedHead = { number: c.block.header.number, hash: c.hash, header: c.block.header };
    // Started after the head batch has committed (a later event turn, so lmdb-js does not fold the two into one
    // transaction); LMDB's single writer lands it before any later write.
    if (defer) this.#nodeWrite = this.writeNodes(Number(c.block.header.number), c);
    headEvents(this.db).emit(this.cachedHead);
  }

  /**
   * Group commit: persists a run of blocks, each extending the one before and the first the head, as commitBlock
   * would one by one, but in ONE atomic batch (one LMDB transaction, one sync): a page several of them touch is
   * written once. Each block's reverse changes are read over the writes of the blocks before it in the batch. After
   * a crash the database holds all of them or none; the head then is the last of them or the head before.
   */
  async commitBlocks(cs: readonly BlockCommit[]): Promise<void> {
    if (cs.length === 0) return;
    await this.nodesWritten();
    this.checkExtends(cs);
    const staged = new StagedBatch(this.db.kv.batch(), this.db.kv);
    const reader: chain.ChainReader = { kv: staged, ancients: this.db.ancients, history: this.db.history };
    for (const c of cs) this.stageBlock(staged, staged, reader, c, true);
    await staged.commit();
    for (const c of cs) {
      this.cachedHead = { number: c.block.header.number, hash: c.hash, header: c.block.header };
      headEvents(this.db).emit(this.cachedHead);
    }
  }

  /** Throws BLOCK_NOT_ON_HEAD unless the blocks form a chain whose first block is a child of the head. */
  private checkExtends(cs: readonly BlockCommit[]): void {
    let parent = this.head();
    for (const c of cs) {
      if (Buffer.compare(c.block.header.parentHash, parent.hash) !== 0)
        throw new TernError(
          'BLOCK_NOT_ON_HEAD',
          `block ${c.block.header.number} does not extend the head ${parent.number}`,
        );
      parent = { number: c.block.header.number, hash: c.hash, header: c.block.header };
    }
  }

  /**
   * Queues what one block extending the head writes (commitBlock's batch) into `b`, reading the state the block
   * applies to through `before` and the canonical index through `r`; without `nodes` its trie nodes and the
   * last-persisted marker are left for a later batch.
   */
  private stageBlock(b: WriteBatch, before: KVReader, r: chain.ChainReader, c: BlockCommit, nodes: boolean): void {
    const n = Number(c.block.header.number);
    const reverse = applyChanges(b, before, changesFromDiff(c.diff, c.storageRoots));
    chain.writeReverseChanges(b, n, c.hash, encodeChanges(reverse));
    this.writeCodeAndNodes(b, c, nodes);
    if (c.dataStored === true) this.writeCanonical(b, c.block, c.hash);
    else this.writeBlock(b, c.block, c.hash, c.receipts, c.encodedReceipts);
    this.writeHead(b, c.block.header.number, c.hash, nodes);
    this.pruneChanges(b, c.block.header.number, r);
  }

  /** The deferred node batch of block `n`; a failure is kept for nodesWritten(). */
  private writeNodes(n: number, c: BlockCommit): Promise<void> {
    const b = this.db.kv.batch();
    for (const [hash, rlp] of eachNode(c.newNodes)) writeTrieNode(b, hash, rlp);
    chain.writeLastPersisted(b, n, c.hash);
    return b.commit().then(
      () => {
        this.#nodeWrite = undefined;
      },
      (err: unknown) => {
        this.#nodeWrite = undefined;
        this.#nodeWriteError ??= err;
      },
    );
  }

  /** Settles when no deferred trie-node write is in flight (never rejects: nodesWritten() reports a failure). */
  nodeWriteLanded(): Promise<void> {
    return this.#nodeWrite ?? Promise.resolve();
  }

  /**
   * Waits for the head's deferred trie-node write (commitBlock with `deferNodes`), if one is in flight; throws its
   * error once if it failed (the database then holds a head without its nodes until the next start repairs it).
   */
  async nodesWritten(): Promise<void> {
    if (this.#nodeWrite !== undefined) await this.#nodeWrite;
    const err = this.#nodeWriteError;
    if (err !== undefined) {
      this.#nodeWriteError = undefined;
      throw err;
    }
  }

  /**
   * Start-up repair after a crash during a deferred node write: while the head is past the last persisted block
   * (its trie nodes never landed), unwinds it with its reverse changes, keeping the block's data but no state (a
   * later newPayload executes it again). Returns the unwound blocks' numbers (none for a consistent database).
   */
  async recoverUnpersistedHead(): Promise<bigint[]> {
    const unwound: bigint[] = [];
    for (;;) {
      const persisted = chain.readLastPersisted(this.db);
      const head = this.head();
      if (persisted === undefined || equalBytes(persisted.hash, head.hash)) return unwound;
      if (BigInt(persisted.number) >= head.number) {
        // Not below the head: no unwinding reaches it. The head's own nodes decide.
        if (readTrieNode(this.db.kv, head.header.stateRoot) === undefined && head.number > 0n)
          throw new TernError(
            'DB_CORRUPT',
            `head block ${head.number} has no state trie and the last persisted block ${persisted.number} is not below it`,
          );
        const b = this.db.kv.batch();
        this.writeHead(b, head.number, head.hash);
        await b.commit();
        return unwound;
      }
      await this.unwindHead({ keepState: false });
      unwound.push(head.number);
    }
  }

  /**
   * Stores an executed block beside the chain without touching the flat state or the head: its data, code, trie
   * nodes and forward state changes (applied by setHead when it becomes canonical).
   */
  async commitSideBlock(c: BlockCommit): Promise<void> {
    const b = this.db.kv.batch();
    const n = Number(c.block.header.number);
    chain.writeForwardChanges(b, n, c.hash, encodeChanges(changesFromDiff(c.diff, c.storageRoots)));
    this.writeCodeAndNodes(b, c);
    this.writeBlockData(b, c.block, c.hash, c.receipts, c.encodedReceipts);
    await b.commit();
  }

  /**
   * Stores a block's header, body and receipts only, not its state: readable by hash, hasState false (a block
   * executed and held in memory until it is written with its state, importer.ts).
   */
  async commitBlockData(
    block: Block,
    hash: Uint8Array,
    receipts: readonly Receipt[],
    encoded?: readonly Uint8Array[],
  ): Promise<void> {
    const b = this.db.kv.batch();
    this.writeBlockData(b, block, hash, receipts, encoded);
    await b.commit();
  }

  /** True when the block is stored with its state (canonical, or a side block with forward changes). */
  hasState(hash: Uint8Array): boolean {
    const n = chain.readHeaderNumber(this.db, hash);
    if (n === undefined) return false;
    const canonical = chain.readCanonicalHash(this.db, n);
    if (canonical !== undefined && Buffer.compare(canonical, hash) === 0 && BigInt(n) <= this.head().number)
      return true;
    return chain.readForwardChanges(this.db, n, hash) !== undefined;
  }

  /** True when the block is on the canonical chain (at or below the head). */
  isCanonical(hash: Uint8Array): boolean {
    const n = chain.readHeaderNumber(this.db, hash);
    if (n === undefined || BigInt(n) > this.head().number) return false;
    const canonical = chain.readCanonicalHash(this.db, n);
    return canonical !== undefined && Buffer.compare(canonical, hash) === 0;
  }

  safeHash(): Uint8Array | undefined {
    return chain.readSafeBlockHash(this.db);
  }

  finalizedHash(): Uint8Array | undefined {
    return chain.readFinalizedBlockHash(this.db);
  }

  /** Records the safe and finalized blocks of the latest forkchoice (undefined leaves a marker as it is). */
  async setForkchoiceMarkers(safe: Uint8Array | undefined, finalized: Uint8Array | undefined): Promise<void> {
    // op-node repeats the same markers with most updates: no write (and no fsync) for what is already stored.
    const same = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
      a !== undefined && b !== undefined && equalBytes(a, b);
    if (same(safe, this.safeHash())) safe = undefined;
    if (same(finalized, this.finalizedHash())) finalized = undefined;
    if (safe === undefined && finalized === undefined) return;
    const b = this.db.kv.batch();
    if (safe !== undefined) chain.writeSafeBlockHash(b, safe);
    if (finalized !== undefined) chain.writeFinalizedBlockHash(b, finalized);
    await b.commit();
  }

  /**
   * Makes `target` (a stored block with state) the head: unwinds canonical blocks down to the common ancestor
   * with the target's branch, then applies the branch. Throws REORG_TOO_DEEP when a block to unwind has no reverse
   * changes left, BLOCK_NO_STATE when a branch block was never executed here.
   */
  async setHead(target: Uint8Array): Promise<HeadChange> {
    await this.nodesWritten();
    const change: HeadChange = { unwound: 0, applied: 0 };
    if (Buffer.compare(target, this.head().hash) === 0) return change;
    const branch: Array<{ header: Header; hash: Uint8Array }> = [];
    let hash = target;
    let header = this.headerByHash(hash);
    if (header === undefined) throw new TernError('BLOCK_UNKNOWN', `block ${hex(target)} is not stored`);
    while (!this.isCanonical(hash)) {
      branch.push({ header, hash });
      hash = header.parentHash;
      const parent = this.headerByHash(hash);
      if (parent === undefined)
        throw new TernError('BLOCK_UNKNOWN', `block ${header.number - 1n} (${hex(hash)}) is not stored`);
      header = parent;
    }
    const ancestor = header.number;
    for (const step of branch) {
      if (chain.readForwardChanges(this.db, Number(step.header.number), step.hash) === undefined)
        throw new TernError('BLOCK_NO_STATE', `block ${step.header.number} (${hex(step.hash)}) was not executed`);
    }
    // Check the whole unwind is possible before changing anything.
    for (let n = this.head().number; n > ancestor; n--) {
      const h = this.canonicalHash(n);
      if (h === undefined || chain.readReverseChanges(this.db, Number(n), h) === undefined)
        throw new TernError(
          'REORG_TOO_DEEP',
          `cannot unwind block ${n}: reorgs deeper than ${this.reorgHistory} blocks are not kept`,
        );
    }
    while (this.head().number > ancestor) {
      await this.unwindHead();
      change.unwound++;
    }
    for (let i = branch.length - 1; i >= 0; i--) {
      await this.applyBlock(branch[i]!.header, branch[i]!.hash);
      change.applied++;
    }
    headEvents(this.db).emit(this.head());
    return change;
  }

  /**
   * Takes the head block off the canonical chain and moves the flat state back to its parent: one batch. The block
   * keeps its forward changes (stays executable by setHead) unless `keepState` is false (its trie nodes are lost).
   */
  private async unwindHead(opts: { keepState?: boolean } = {}): Promise<void> {
    const head = this.head();
    const n = Number(head.number);
    const rawReverse = chain.readReverseChanges(this.db, n, head.hash);
    if (rawReverse === undefined) throw new TernError('REORG_TOO_DEEP', `block ${n} has no reverse state changes`);
    const reverse = decodeChanges(rawReverse);
    const b = this.db.kv.batch();
    if (opts.keepState === false) chain.deleteForwardChanges(b, n, head.hash);
    else if (chain.readForwardChanges(this.db, n, head.hash) === undefined)
      chain.writeForwardChanges(b, n, head.hash, encodeChanges(forwardFromReverse(reverse, this.db.kv)));
    applyChanges(b, this.db.kv, reverse);
    chain.deleteReverseChanges(b, n, head.hash);
    chain.deleteCanonicalHash(b, n);
    const block = this.blockByHash(head.hash);
    if (block) {
      // Only entries still pointing at this height (a transaction may sit in both branches).
      const hashes = block.transactions
        .map((t) => keccak256(t))
        .filter((h) => chain.readTxLookup(this.db, h)?.blockNumber === n);
      chain.deleteTxLookups(b, hashes);
    }
    const parentHash = head.header.parentHash;
    const parent = this.headerByHash(parentHash);
    if (parent === undefined) throw new TernError('DB_CORRUPT', `parent of block ${n} is missing`);
    this.writeHead(b, parent.number, parentHash);
    await b.commit();
    this.cachedHead = { number: parent.number, hash: parentHash, header: parent };
  }

  /** Makes a child of the head canonical from its forward state changes: one batch. */
  private async applyBlock(header: Header, hash: Uint8Array): Promise<void> {
    const n = Number(header.number);
    const raw = chain.readForwardChanges(this.db, n, hash);
    const block = this.blockByHash(hash);
    if (raw === undefined || block === undefined)
      throw new TernError('BLOCK_NO_STATE', `block ${n} (${hex(hash)}) was not executed`);
    const b = this.db.kv.batch();
    const reverse = applyChanges(b, this.db.kv, decodeChanges(raw));
    chain.writeReverseChanges(b, n, hash, encodeChanges(reverse));
    this.writeCanonical(b, block, hash);
    this.writeHead(b, header.number, hash);
    this.pruneChanges(b, header.number);
    await b.commit();
    this.cachedHead = { number: header.number, hash, header };
  }
}
