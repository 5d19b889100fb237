// One consistent read view of the chain for the duration of an RPC request: every read of a request (the head,
// headers, bodies, receipts, the flat state, trie nodes) goes to the same database snapshot, so a block imported
// meanwhile never shows half of itself. Decoding is done here, once; nothing in this file writes.

import type { KVReader } from '../../common/db/interface.js';
import { TernError } from '../../common/errors.js';
import type { Block } from '../../primitives/block/block.js';
import type { Header } from '../../primitives/block/header.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { asList, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import * as chain from '../db/chain.js';
import type { Database } from '../db/open.js';
import { DbStateReader } from '../state/stateStore.js';
import { headTriePending, readBlock, readHeader, readReceipts } from './chainStore.js';
import type { PendingBlock } from './pending.js';

/** A header together with its hash (the hash is what the database keys it by; no re-hashing needed). */
export interface HeaderRef {
  readonly header: Header;
  readonly hash: Uint8Array;
}

export const equalBytes = (a: Uint8Array | undefined, b: Uint8Array | undefined): boolean =>
  a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;

export class ChainView {
  #head: HeaderRef | undefined;
  #state: DbStateReader | undefined;
  /** --rollup.computependingblock: the pending block on top of this view's head, for requests that name it. */
  pending: PendingBlock | undefined;

  constructor(
    private readonly reader: chain.ChainReader,
    readonly config: ChainConfig,
    private readonly onRelease: () => void = () => {},
  ) {}

  /** True when this view's head has its trie nodes still on their way (ChainStore.commitBlock's `deferNodes`). */
  headTriePending(): boolean {
    return headTriePending(this.reader);
  }

  /** Opens a view over a snapshot of `db`; release it when the request is done. */
  static open(db: Database, config: ChainConfig): ChainView {
    const snap = db.snapshot();
    return new ChainView(snap, config, () => snap.release());
  }

  release(): void {
    this.onRelease();
  }

  /** The head block of this view. */
  head(): HeaderRef {
    if (this.#head) return this.#head;
    const hash = chain.readHeadBlockHash(this.reader);
    const header = hash && this.headerByHash(hash);
    if (!hash || !header) {
      throw new TernError('CHAIN_NOT_INITIALISED', 'database has no head block: run `tern-exec init` first');
    }
    this.#head = { header, hash };
    return this.#head;
  }

  /** The block marked safe by the consensus client, if any. */
  safe(): HeaderRef | undefined {
    return this.#marked(chain.readSafeBlockHash(this.reader));
  }

  /** The block marked finalized by the consensus client, if any. */
  finalized(): HeaderRef | undefined {
    return this.#marked(chain.readFinalizedBlockHash(this.reader));
  }

  #marked(hash: Uint8Array | undefined): HeaderRef | undefined {
    const header = hash && this.headerByHash(hash);
    return hash && header ? { header, hash } : undefined;
  }

  numberOf(hash: Uint8Array): number | undefined {
    return hash.length === 32 ? chain.readHeaderNumber(this.reader, hash) : undefined;
  }

  /** Decoded through the --cache.database block cache the snapshot carries (readHeader). */
  headerByHash(hash: Uint8Array): Header | undefined {
    return hash.length === 32 ? readHeader(this.reader, hash) : undefined;
  }

  /** The header's RLP as stored. */
  rawHeader(hash: Uint8Array): Uint8Array | undefined {
    const n = this.numberOf(hash);
    return n === undefined ? undefined : chain.readHeaderRlp(this.reader, n, hash);
  }

  canonicalHash(number: bigint): Uint8Array | undefined {
    if (number < 0n || number > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
    return chain.readCanonicalHash(this.reader, Number(number));
  }

  /** The canonical header at `number`. */
  headerByNumber(number: bigint): HeaderRef | undefined {
    const hash = this.canonicalHash(number);
    const header = hash && this.headerByHash(hash);
    return hash && header ? { header, hash } : undefined;
  }

  isCanonical(ref: HeaderRef): boolean {
    return equalBytes(this.canonicalHash(ref.header.number), ref.hash);
  }

  /** The whole block (header and body) stored under `hash`. */
  block(hash: Uint8Array): Block | undefined {
    if (this.pending && equalBytes(hash, this.pending.ref.hash)) return this.pending.block;
    return hash.length === 32 ? readBlock(this.reader, hash) : undefined;
  }

  /** The consensus receipts of block (number, hash); undefined when not stored. */
  receipts(ref: HeaderRef): Receipt[] | undefined {
    if (this.pending && equalBytes(ref.hash, this.pending.ref.hash)) return [...this.pending.receipts];
    return readReceipts(this.reader, ref.header.number, ref.hash);
  }

  /** Each receipt's consensus encoding (typed receipts as `type ‖ rlp`), as debug_getRawReceipts returns them. */
  rawReceipts(ref: HeaderRef): Uint8Array[] | undefined {
    const rlp = chain.readReceiptsRlp(this.reader, Number(ref.header.number), ref.hash);
    if (rlp === undefined) return undefined;
    return asList(rlpDecode(rlp), 'receipts').map((r) =>
      r instanceof Uint8Array ? r : rlpEncode(r as Parameters<typeof rlpEncode>[0]),
    );
  }

  txLookup(txHash: Uint8Array): chain.TxLookup | undefined {
    return txHash.length === 32 ? chain.readTxLookup(this.reader, txHash) : undefined;
  }

  /** The key-value view under this one (the log index is read from it, consistently with the chain). */
  get kv(): KVReader {
    return this.reader.kv;
  }

  /** The flat state (of the head block of this view), code by hash and trie nodes by hash. */
  state(): DbStateReader {
    this.#state ??= new DbStateReader(this.reader.kv);
    return this.#state;
  }
}
