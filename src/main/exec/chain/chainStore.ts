// The canonical chain in the database: genesis initialisation, head tracking, and block/receipt reads by number
// and hash. Block import (importer.ts) writes through commitBlock so a block lands in one atomic batch.
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import { type Block, decodeBlock, encodeBlock } from '../../primitives/block/block.js';
import { decodeHeader, encodeHeader, type Header, headerHash } from '../../primitives/block/header.js';
import { type ChainConfig, parseChainConfig } from '../../primitives/chainConfig.js';
import { decodeReceipt, encodeReceipt, type Receipt } from '../../primitives/receipt/receipt.js';
import { asList, type RlpDecoded, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { EMPTY_TRIE_ROOT } from '../../primitives/trie/root.js';
import * as chain from '../db/chain.js';
import type { WriteBatch } from '../db/interface.js';
import type { Database } from '../db/open.js';
import type { StateDiff } from '../state/interface.js';
import { StateCommitment } from '../state/trie/commitment.js';
import type { TrieNode } from '../state/trie/interface.js';
import { type Genesis, genesisHeader } from './genesis.js';
import { DbStateReader, writeStateDiff } from './stateStore.js';

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

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
  newNodes: readonly TrieNode[];
}

export class ChainStore {
  private cachedHead: ChainHead | undefined;
  private cachedConfig: ChainConfig | undefined;

  constructor(readonly db: Database) {}

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

  headerByHash(hash: Uint8Array): Header | undefined {
    const n = chain.readHeaderNumber(this.db, hash);
    if (n === undefined) return undefined;
    const rlp = chain.readHeaderRlp(this.db, n, hash);
    return rlp === undefined ? undefined : decodeHeader(rlp);
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
    const n = chain.readHeaderNumber(this.db, hash);
    if (n === undefined) return undefined;
    const headerRlp = chain.readHeaderRlp(this.db, n, hash);
    const bodyRlp = chain.readBodyRlp(this.db, n, hash);
    if (headerRlp === undefined || bodyRlp === undefined) return undefined;
    const body = asList(rlpDecode(bodyRlp), 'body');
    return decodeBlock(rlpEncode([rlpDecode(headerRlp), ...body] as Parameters<typeof rlpEncode>[0]));
  }

  blockByNumber(number: bigint): Block | undefined {
    const hash = this.canonicalHash(number);
    return hash === undefined ? undefined : this.blockByHash(hash);
  }

  receipts(number: bigint, hash: Uint8Array): Receipt[] | undefined {
    const rlp = chain.readReceiptsRlp(this.db, Number(number), hash);
    if (rlp === undefined) return undefined;
    return asList(rlpDecode(rlp), 'receipts').map((r) =>
      decodeReceipt(r instanceof Uint8Array ? r : rlpEncode(r as Parameters<typeof rlpEncode>[0])),
    );
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

  private writeBlock(b: WriteBatch, block: Block, hash: Uint8Array, receipts: readonly Receipt[]): void {
    const n = Number(block.header.number);
    chain.writeHeaderRlp(b, n, hash, encodeHeader(block.header));
    const full = asList(rlpDecode(encodeBlock(block)), 'block');
    chain.writeBodyRlp(b, n, hash, rlpEncode(full.slice(1) as RlpDecoded[] as Parameters<typeof rlpEncode>[0]));
    chain.writeReceiptsRlp(b, n, hash, rlpEncode(receipts.map((r) => encodeReceipt(r))));
    chain.writeCanonicalHash(b, n, hash);
    chain.writeTxLookups(
      b,
      n,
      block.transactions.map((t) => keccak256(t)),
    );
  }

  private writeHead(b: WriteBatch, number: bigint, hash: Uint8Array): void {
    chain.writeHeadBlockHash(b, hash);
    chain.writeHeadHeaderHash(b, hash);
    chain.writeLastPersisted(b, Number(number), hash);
  }

  /** Persists an imported block, its receipts and state changes, and moves the head to it: one atomic batch. */
  async commitBlock(c: BlockCommit): Promise<void> {
    const b = this.db.kv.batch();
    writeStateDiff(b, this.db.kv, c.diff, c.storageRoots, c.newNodes);
    this.writeBlock(b, c.block, c.hash, c.receipts);
    this.writeHead(b, c.block.header.number, c.hash);
    await b.commit();
    this.cachedHead = { number: c.block.header.number, hash: c.hash, header: c.block.header };
  }
}
