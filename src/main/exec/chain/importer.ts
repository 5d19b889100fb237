// Block import (ARCHITECTURE.md "Data flow of block import"): validate the header against its parent and the
// body against the header, recover senders on the worker pool, execute on the flat state, check gas, receipts
// and bloom, compute the state root from the block's state diff (trie commitment, on the TrieHasher: with
// `pipeline`, block N is hashed while N+1 executes, and checked before N+1 is accepted or N written), and persist
// everything in one atomic batch. importBlock extends the canonical head (import command, dev chain); insertBlock executes a
// block on any stored parent (flat state for the head's children, the trie for other parents) and stores it
// beside the chain without moving the head — the Engine API's newPayload; forkchoiceUpdated then calls setHead.
//
// Held writes (insertBlock with `defer`): op-node sends newPayload N, waits for its answer, then forkchoiceUpdated
// to N. A deferred child of the head is executed and checked, answered, and kept in memory; a setHead to it then
// writes it as importBlock does (block, state changes and head in one atomic batch, applied from the diff in hand)
// instead of a side write followed by a second batch that reads its forward changes back. Anything else the
// importer is asked first (settle(), which every other entry point calls) stores it beside the chain as
// insertBlock would have, and so does a timer when nothing comes. Like op-geth, whose newPayload keeps the new
// state in memory, a VALID block may be lost by a crash before its forkchoiceUpdated: the database then holds its
// parent as the head, consistent, and the consensus client sends the block again.
// The held block's trie nodes stay in the hasher's layer (commit with `keep`) and its setHead commits them after
// the head (ChainStore.commitBlock with `deferNodes`): the next payload executes, and is hashed over that layer,
// while LMDB writes them; the layer is released once they are in the database.
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { type Block, transactionsRoot, unclesHash, withdrawalsRoot } from '../../primitives/block/block.js';
import { type Header, headerHash } from '../../primitives/block/header.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { isOptimism, isTimeForkActive } from '../../primitives/chainConfig.js';
import type { Receipt } from '../../primitives/receipt/receipt.js';
import { encodeReceipt, encodeReceiptForRoot } from '../../primitives/receipt/receipt.js';
import type { StateCommitmentResult } from '../../primitives/trie/commitment.js';
import { EMPTY_TRIE_ROOT, orderedTrieRoot } from '../../primitives/trie/root.js';
import type { TxHooks } from '../evm/context.js';
import { createExecutor } from '../evm/executor.js';
import type { Executor } from '../evm/transition.js';
import { InlineTrieHasher } from '../hasher/inline.js';
import type { TrieCommit, TrieHasher } from '../hasher/interface.js';
import { touchedAddresses, txAddresses } from '../hasher/touched.js';
import { type SenderRecovery, type SenderResult, type SenderStream, streamedSender } from '../senders/interface.js';
import type { FlatStateOptions } from '../state/flatState.js';
import type { StateDiff, StateReader } from '../state/interface.js';
import { DbStateReader } from '../state/stateStore.js';
import { TrieStateReader } from '../state/trieReader.js';
import type { BlockCommit, ChainHead, ChainStore, HeadChange } from './chainStore.js';
import { processBlock } from './processBlock.js';
import { validateHeader } from './validateHeader.js';

const equal = (a: Uint8Array | undefined, b: Uint8Array | undefined) =>
  a !== undefined && b !== undefined && Buffer.compare(a, b) === 0;

export interface ImportTimings {
  senders: number;
  execution: number;
  stateRoot: number;
  persistence: number;
}

export interface ImportResult {
  number: bigint;
  hash: Uint8Array;
  gasUsed: bigint;
  txs: number;
  /** 'known': the block was already stored (with its state) and nothing was done. */
  status: 'imported' | 'known';
  /** insertBlock with `defer`: the block is valid and held in memory, not written yet (see the file comment). */
  held?: boolean;
  timings: ImportTimings;
}

/** BLOCK_INVALID naming the block: with pipelining a block's state root is found wrong while the next one runs. */
export class InvalidBlockError extends TernError {
  readonly number: bigint;

  constructor(number: bigint, message: string) {
    super('BLOCK_INVALID', message);
    this.number = number;
  }
}

function invalid(block: Block, message: string): never {
  throw new InvalidBlockError(
    block.header.number,
    `block ${block.header.number} (${hex(headerHash(block.header))}) is invalid: ${message}`,
  );
}

/** OP deposit transactions' type: their receipts alone may be encoded differently for the receipts root. */
const DEPOSIT_TX_TYPE = 0x7e;

/** The OP-Stack contract whose storage root is the withdrawals root of Isthmus headers. */
const L2_TO_L1_MESSAGE_PASSER = '0x4200000000000000000000000000000000000016';

/** A block executed on its parent's state and checked against its header, ready to persist. */
export interface ExecutedBlock {
  block: Block;
  hash: Uint8Array;
  receipts: Receipt[];
  diff: StateDiff;
  commitment: StateCommitmentResult;
  senders: Uint8Array[];
  /** The receipts' consensus encodings (stored as they are), when already computed. */
  encodedReceipts?: Uint8Array[] | undefined;
}

/**
 * Blocks whose writes may be queued (importBlock with `pipeline`) before the next import waits for the oldest: room
 * for a group being committed and the next group forming behind it.
 */
const MAX_QUEUED_WRITES = 5;
/**
 * Most blocks one group commit writes (one LMDB transaction). A block's write waits for no more than the commit in
 * flight; meanwhile the blocks behind it whose state roots have checked out join it in the next transaction, where a
 * page several of them touch is written once and the syncs are shared. 5 and 3 against 8 and 6 or 4 and 2:
 * bench/RESULTS.md, "Block import", session 9.
 */
const MAX_GROUP_BLOCKS = 3;
/** Event-loop turns given to the writer and the pools between two pipelined blocks (~µs each when idle). */
const EVENT_TURNS_BETWEEN_BLOCKS = 3;

/** Options of one importBlock/insertBlock call. */
export interface ImportOptions {
  /**
   * The block's senders, recovery already under way (the import command starts it for the next blocks while this
   * one executes, ARCHITECTURE.md data flow step 1). Without it the importer recovers them itself.
   */
  senders?: Promise<SenderResult[]>;
  /** importBlock only: queue the write, and the state-root check, instead of waiting for them (see importBlock). */
  pipeline?: boolean;
  /** insertBlock only: hold a child of the head in memory for a setHead to it (see the file comment). */
  defer?: boolean;
}

/** How long a held block waits for its setHead before it is written beside the chain anyway. */
export const HELD_WRITE_IDLE_MS = 100;

/** Executed and checked up to the state root: what the trie commitment and the write need. */
interface Executed {
  block: Block;
  hash: Uint8Array;
  receipts: Receipt[];
  diff: StateDiff;
  senders: Uint8Array[];
  isthmus: boolean;
  encodedReceipts: Uint8Array[];
}

/** A pipelined block whose commitment is still on the hasher: `verified` rejects if its state root is wrong. */
interface Verifying {
  number: bigint;
  verified: Promise<TrieCommit>;
}

/** A queued block write (importBlock with `pipeline`), waiting for its commitment and for the writer. */
interface QueuedWrite {
  number: bigint;
  hash: Uint8Array;
  done: Executed;
  commitment: Promise<TrieCommit>;
  /** Set once the commitment has landed with the header's roots: the block may join a group commit. */
  verified: TrieCommit | undefined;
  /** Settles once the block is written or its write failed (never rejects). */
  written: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class BlockImporter {
  /**
   * The block whose post-state the executor's flat-state overlay holds (kept as a warm cache across blocks), or
   * undefined when the overlay must be dropped before the next block. State is a function of the block hash, so
   * a child of this block may execute on the overlay whatever reader of the parent state it is given.
   */
  private cachedState: Uint8Array | undefined;
  /** The last queued block write (importBlock with `pipeline`) and the head it leaves; undefined when none. */
  private queue: { promise: Promise<void>; head: ChainHead } | undefined;
  /** The first queued write that failed; importBlock and settle() report it. */
  private writeError: unknown;
  /** The queued blocks, in order, until their write is done (their trie nodes stay in the hasher's layers). */
  private readonly pendingNodes: QueuedWrite[] = [];
  /** The queued blocks whose write has not started, in order (the writer takes them in groups). */
  private readonly waiting: QueuedWrite[] = [];
  /** The group commit in flight, if any. */
  private writing: Promise<void> | undefined;
  /** The last pipelined block whose state root is not known to be right yet. */
  private verifying: Verifying | undefined;
  /** Hashes of the queued blocks by number (BLOCKHASH before the canonical index has them). */
  private readonly pendingHashes = new Map<bigint, Uint8Array>();
  /** The held block (insertBlock with `defer`) and the timer that writes it when no setHead comes. */
  private held: { done: ExecutedBlock & { commitment: TrieCommit }; timer: ReturnType<typeof setTimeout> } | undefined;
  /** The side write of the last held block flushed, until it is done (its error goes to writeError). */
  private heldWrite: Promise<void> | undefined;

  private constructor(
    private readonly store: ChainStore,
    private readonly senders: SenderRecovery,
    private readonly executor: Executor,
    private readonly logger: Logger,
    private readonly hasher: TrieHasher,
  ) {}

  /**
   * `opts.tracer`: a live tracer (--vmtrace) called around every transaction the importer executes. `opts.hasher`:
   * the trie hasher (the caller closes it); default an InlineTrieHasher over the store's database, without cache.
   */
  static async create(
    store: ChainStore,
    senders: SenderRecovery,
    logger: Logger,
    opts: {
      tracer?: TxHooks | undefined;
      hasher?: TrieHasher | undefined;
      /** The executor overlay's cross-block caches (--cache.snapshot, --snapshot: history/options.ts). */
      flatState?: Partial<FlatStateOptions> | undefined;
    } = {},
  ): Promise<BlockImporter> {
    const config = store.config();
    const keccak256 = store.preimages?.keccak256; // --vmdebug: KECCAK256 inputs recorded (./preimages.ts)
    const executor = await createExecutor(config, store.stateReader(), { keccak256, flatState: opts.flatState });
    executor.tracer = opts.tracer;
    const hasher = opts.hasher ?? new InlineTrieHasher({ prefetch: false }, { db: store.db.kv });
    return new BlockImporter(store, senders, executor, logger, hasher);
  }

  private result(block: Block, hash: Uint8Array, status: ImportResult['status'], timings: ImportTimings): ImportResult {
    return {
      number: block.header.number,
      hash,
      gasUsed: block.header.gasUsed,
      txs: block.transactions.length,
      status,
      timings,
    };
  }

  /**
   * Imports a block that extends the canonical head and makes it the head (the fast path). With `pipeline`, the
   * call returns once the block is executed (header, body, gas, receipts and bloom checked) with its state root on
   * the trie hasher and its write queued behind the writes before it (atomic and in order; blocks queued behind a
   * commit in flight share the next batch, see writeGroup): the next block then executes while the hasher computes
   * this block's root and LMDB commits the blocks before. The root is
   * compared with the header before the block is written and before the next block is accepted: a wrong root is
   * reported (InvalidBlockError naming this block) by the next importBlock or by settle(), the next block's work is
   * dropped and nothing after the block before is written. Call settle() to wait for the queued checks and writes (and
   * see their errors); a failed write is also reported by the next importBlock.
   */
  async importBlock(block: Block, opts: ImportOptions = {}): Promise<ImportResult> {
    const prior = this.verifying;
    try {
      return await this.importOne(block, opts, prior);
    } catch (err) {
      // A wrong state root in the block before explains (and outranks) whatever went wrong with this one.
      if (prior !== undefined) await this.checkPrior(prior, { senders: 0, execution: 0, stateRoot: 0, persistence: 0 });
      throw err;
    }
  }

  private async importOne(block: Block, opts: ImportOptions, prior: Verifying | undefined): Promise<ImportResult> {
    const header = block.header;
    const hash = headerHash(header);
    const timings: ImportTimings = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 };
    if (this.held !== undefined) await this.flushHeld();
    if (this.writeError !== undefined) await this.settle();
    const queued = this.queue;
    const known = this.store.canonicalHash(header.number);
    if (queued === undefined && equal(known, hash) && header.number <= this.store.head().number)
      return this.result(block, hash, 'known', timings);
    const head = queued?.head ?? this.store.head();
    if (!equal(header.parentHash, head.hash)) {
      const parentKnown =
        this.store.headerByHash(header.parentHash) !== undefined || equal(header.parentHash, queued?.head.hash);
      throw new TernError(
        parentKnown ? 'BLOCK_NOT_ON_HEAD' : 'BLOCK_UNKNOWN_PARENT',
        parentKnown
          ? `block ${header.number} does not extend the head ${head.number} (${hex(head.hash)}); import extends the canonical chain only`
          : `block ${header.number} has an unknown parent ${hex(header.parentHash)}`,
      );
    }
    // Executing on a snapshot that lacks the queued blocks is right only while the overlay holds every change they
    // made (it does when it is warm on the parent) and their trie nodes come from the hasher's layers. Isthmus
    // reads the message passer's storage root from the snapshot: wait for the writes there.
    const config = this.store.config();
    const overlayCovers = this.cachedState !== undefined && equal(this.cachedState, header.parentHash);
    const isthmus = isOptimism(config) && isTimeForkActive(config, 'isthmusTime', header.timestamp);
    // Writes are queued for every pipelined block; the state-root check is deferred except for Isthmus blocks,
    // whose withdrawals root (the message passer's storage root) needs the commitment before the block checks out.
    const queueWrite = opts.pipeline === true;
    const pipelined = queueWrite && !isthmus;
    if (queued !== undefined) {
      const t = performance.now();
      if (!queueWrite || !overlayCovers || isthmus) await this.settle();
      else {
        // Let the event loop turn (lmdb-js starts a batch's transaction at the end of an event turn and reports its
        // commit as a macrotask, and worker replies are macrotasks too: a block's execution yields to none of
        // them), and keep at most MAX_QUEUED_WRITES blocks in memory.
        for (let turn = 0; turn < EVENT_TURNS_BETWEEN_BLOCKS; turn++)
          await new Promise<void>((resolve) => setImmediate(resolve));
        const oldest = this.pendingNodes[0];
        if (this.pendingNodes.length >= MAX_QUEUED_WRITES && oldest !== undefined) await oldest.written;
        if (this.writeError !== undefined) await this.settle();
      }
      timings.persistence += performance.now() - t;
    }
    // `prior`, the block before, still being hashed, is checked once this block has executed (or failed).
    const snapshot = this.store.db.kv.snapshot();
    let done: Executed;
    let commitment: Promise<TrieCommit>;
    try {
      const reader = new DbStateReader(snapshot);
      const hashes = this.pendingHashes;
      ({ done, commitment } = await this.execute(
        block,
        hash,
        head.header,
        reader,
        timings,
        false,
        opts.senders,
        hashes.size === 0 ? undefined : (n) => hashes.get(n) ?? this.store.canonicalHash(n),
        pipelined,
      ));
    } finally {
      snapshot.release();
    }
    if (prior !== undefined) {
      try {
        await this.checkPrior(prior, timings);
      } catch (err) {
        // This block's work goes with the overlay; its commitment's nodes are dropped when it lands.
        commitment.then(
          (c) => this.releaseLayer(c),
          () => {},
        );
        throw err;
      }
    }
    if (queueWrite) {
      this.enqueue(done, commitment);
      if (pipelined) this.verifying = { number: header.number, verified: commitment };
    } else {
      const t = performance.now();
      await this.persist(async () => this.store.commitBlock(blockCommit(done, await commitment)));
      timings.persistence += performance.now() - t;
    }
    this.logger.debug('Imported block', {
      number: header.number,
      hash: hex(hash),
      txs: block.transactions.length,
      gas: header.gasUsed,
    });
    return this.result(block, hash, 'imported', timings);
  }

  /**
   * Waits for the pipelined block before to check out (its commitment landed, root equal to its header's); the wait
   * counts as state-root time. If it did not: the overlay (holding that block's and this one's changes) is dropped,
   * the writes before it land, and its error is thrown.
   */
  private async checkPrior(prior: Verifying, timings: ImportTimings): Promise<void> {
    const t = performance.now();
    try {
      await prior.verified;
    } catch (err) {
      this.cachedState = undefined;
      if (this.verifying === prior) this.verifying = undefined;
      // The failed block's queued write fails with the same error: settle() reports it once, here.
      await this.settle().catch(() => {});
      throw err;
    } finally {
      timings.stateRoot += performance.now() - t;
    }
    if (this.verifying === prior) this.verifying = undefined;
  }

  private releaseLayer(c: { layer?: number | undefined }): void {
    if (c.layer !== undefined) this.hasher.release(c.layer);
  }

  /**
   * Queues a block's write (which first waits for its commitment) behind the queued ones; its hash stays readable
   * until it is written, and its trie nodes in the hasher's layers.
   */
  private enqueue(done: Executed, commitment: Promise<TrieCommit>): void {
    const { block, hash } = done;
    const number = block.header.number;
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const entry: QueuedWrite = {
      number,
      hash,
      done,
      commitment,
      verified: undefined,
      // Seen by settle() or the next importBlock.
      written: promise.catch(() => {}),
      resolve,
      reject,
    };
    commitment.then(
      (c) => {
        entry.verified = c;
      },
      () => {},
    );
    this.waiting.push(entry);
    this.pendingNodes.push(entry);
    this.pendingHashes.set(number, hash);
    this.queue = { promise, head: { number, hash, header: block.header } };
    this.pump();
  }

  /** Starts the next group commit unless one is in flight. */
  private pump(): void {
    if (this.writing !== undefined || this.waiting.length === 0) return;
    this.writing = this.writeGroup().finally(() => {
      this.writing = undefined;
      this.pump();
    });
  }

  /**
   * Writes the oldest waiting block, once its commitment checks out, together with the blocks behind it whose
   * commitments already have (up to MAX_GROUP_BLOCKS): one atomic batch (ChainStore.commitBlocks). A wrong root or a
   * failed write fails that block's write and every one queued after it; nothing after the block before is written.
   */
  private async writeGroup(): Promise<void> {
    const first = this.waiting[0];
    if (first === undefined) return;
    try {
      first.verified = await first.commitment;
    } catch (err) {
      this.failQueued(err, []);
      return;
    }
    let size = 1;
    while (size < MAX_GROUP_BLOCKS && this.waiting[size]?.verified !== undefined) size++;
    const group = this.waiting.splice(0, size);
    try {
      await this.store.commitBlocks(group.map((e) => blockCommit(e.done, e.verified as TrieCommit)));
    } catch (err) {
      this.failQueued(err, group);
      return;
    }
    for (const e of group) {
      this.releaseLayer(e.verified as TrieCommit);
      const i = this.pendingNodes.indexOf(e);
      if (i >= 0) this.pendingNodes.splice(i, 1);
      if (equal(this.pendingHashes.get(e.number), e.hash)) this.pendingHashes.delete(e.number);
      e.resolve();
    }
  }

  /** A queued write failed: it and every write queued after it fail with its error (settle() reports it once). */
  private failQueued(err: unknown, group: QueuedWrite[]): void {
    this.cachedState = undefined;
    this.writeError ??= err;
    const failed = [...group, ...this.waiting.splice(0)];
    for (const e of failed) e.reject(err);
  }

  /**
   * Waits until every queued block is checked and written. Throws the first error (a wrong state root of a pipelined
   * block, a failed write), once (the queue is then dropped and the importer starts over from the database's head).
   * Also waits for the head's deferred trie nodes (ChainStore.nodesWritten) unless `nodes` is false: only work on a
   * child of the head, which the hasher's layer serves, may go on while they are written.
   */
  async settle(opts: { nodes?: boolean } = {}): Promise<void> {
    await this.flushHeld();
    if (opts.nodes !== false) await this.store.nodesWritten();
    const queued = this.queue;
    if (queued !== undefined) {
      try {
        await queued.promise;
      } catch {
        // Recorded in writeError by enqueue().
      } finally {
        if (this.queue === queued) {
          this.queue = undefined;
          this.verifying = undefined;
          this.pendingNodes.length = 0;
          this.pendingHashes.clear();
        }
      }
    }
    const err = this.writeError;
    if (err !== undefined) {
      this.writeError = undefined;
      throw err;
    }
  }

  /**
   * Executes a block on its parent's state, wherever the parent is (canonical head, older canonical block or a side
   * chain), and stores it without moving the head. Throws BLOCK_UNKNOWN_PARENT when the parent (or its state) is
   * not stored, BLOCK_INVALID when the block is invalid.
   */
  async insertBlock(block: Block, opts: ImportOptions = {}): Promise<ImportResult> {
    const header = block.header;
    const hash = headerHash(header);
    const timings: ImportTimings = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 };
    await this.settle({ nodes: !equal(header.parentHash, this.store.head().hash) });
    if (this.store.hasState(hash)) return this.result(block, hash, 'known', timings);
    const hold = opts.defer === true && equal(header.parentHash, this.store.head().hash);
    const done = await this.executeOnParent(block, hash, timings, opts.senders, hold);
    if (hold) {
      // The block itself is durable before the answer (as op-geth writes it at newPayload); its state waits.
      const t = performance.now();
      await this.store.commitBlockData(block, hash, done.receipts, done.encodedReceipts);
      timings.persistence = performance.now() - t;
      const timer = setTimeout(() => void this.flushHeld(), HELD_WRITE_IDLE_MS);
      timer.unref?.();
      this.held = { done, timer };
      this.logger.debug('Held block', { number: header.number, hash: hex(hash), txs: block.transactions.length });
      return { ...this.result(block, hash, 'imported', timings), held: true };
    }
    const t = performance.now();
    await this.persist(() => this.persistSide(done));
    timings.persistence = performance.now() - t;
    this.logger.debug('Inserted block', { number: header.number, hash: hex(hash), txs: block.transactions.length });
    return this.result(block, hash, 'imported', timings);
  }

  /**
   * Makes a stored block the head (ChainStore.setHead). The held block, when it is the target and still a child of
   * the head, is written as the head in one batch instead (its trie nodes right after, unless `deferNodes` is false:
   * ./trieNodeWrites.ts); any other target first stores the held block beside the chain.
   */
  async setHead(hash: Uint8Array, opts: { deferNodes?: boolean } = {}): Promise<HeadChange> {
    const held = this.held;
    if (
      held !== undefined &&
      equal(held.done.hash, hash) &&
      this.queue === undefined &&
      equal(held.done.block.header.parentHash, this.store.head().hash)
    ) {
      this.held = undefined;
      clearTimeout(held.timer);
      const { done } = held;
      try {
        await this.persist(() =>
          this.store.commitBlock(
            {
              block: done.block,
              hash: done.hash,
              receipts: done.receipts,
              diff: done.diff,
              storageRoots: done.commitment.storageRoots,
              newNodes: done.commitment.newNodes,
              dataStored: true,
            },
            { deferNodes: opts.deferNodes !== false },
          ),
        );
      } finally {
        // The hasher serves the block's nodes until they are in the database (or the write failed).
        void this.store.nodeWriteLanded().then(() => this.releaseLayer(done.commitment));
      }
      return { unwound: 0, applied: 1 };
    }
    await this.settle();
    return this.store.setHead(hash);
  }

  /** Stores the held block beside the chain (as insertBlock without `defer`); a failed write goes to writeError. */
  private async flushHeld(): Promise<void> {
    const held = this.held;
    if (held !== undefined) {
      this.held = undefined;
      clearTimeout(held.timer);
      const before = this.heldWrite ?? Promise.resolve();
      this.heldWrite = before.then(() =>
        this.persist(() => this.persistSide(held.done))
          .catch((err: unknown) => {
            this.writeError ??= err;
          })
          .finally(() => this.releaseLayer(held.done.commitment)),
      );
    }
    await this.heldWrite;
  }

  /** Runs a write; if it fails, the overlay (already advanced to the unwritten block) is dropped. */
  private async persist<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (err) {
      this.cachedState = undefined;
      throw err;
    }
  }

  /** Stores an executed block (from executeOnParent or the block builder) beside the chain. */
  async persistSide(done: ExecutedBlock): Promise<void> {
    await this.store.commitSideBlock({
      block: done.block,
      hash: done.hash,
      receipts: done.receipts,
      encodedReceipts: done.encodedReceipts,
      diff: done.diff,
      storageRoots: done.commitment.storageRoots,
      newNodes: done.commitment.newNodes,
    });
  }

  /**
   * Executes and checks a block on its stored parent's state; nothing is written. With `keep` its trie nodes stay in
   * the hasher's layer (commitment.layer) until the caller releases it.
   */
  async executeOnParent(
    block: Block,
    hash: Uint8Array = headerHash(block.header),
    timings: ImportTimings = { senders: 0, execution: 0, stateRoot: 0, persistence: 0 },
    senders?: Promise<SenderResult[]>,
    keep = false,
  ): Promise<ExecutedBlock & { commitment: TrieCommit }> {
    await this.settle({ nodes: !equal(block.header.parentHash, this.store.head().hash) });
    const header = block.header;
    const parent = this.store.headerByHash(header.parentHash);
    if (parent === undefined || !this.store.hasState(header.parentHash))
      throw new TernError(
        'BLOCK_UNKNOWN_PARENT',
        `block ${header.number} has an unknown parent ${hex(header.parentHash)}`,
      );
    const snapshot = this.store.db.kv.snapshot();
    try {
      const db = new DbStateReader(snapshot);
      const onHead = equal(header.parentHash, this.store.head().hash);
      const reader: StateReader = onHead ? db : new TrieStateReader(db, parent.stateRoot);
      const { done, commitment } = await this.execute(
        block,
        hash,
        parent,
        reader,
        timings,
        !this.store.isCanonical(header.parentHash),
        senders,
        undefined,
        false,
        keep,
      );
      return { ...done, commitment: await commitment };
    } finally {
      snapshot.release();
    }
  }

  /** BLOCKHASH for a block whose parent is not canonical: the side branch first, the canonical chain below it. */
  private ancestry(parent: Header, parentHash: Uint8Array): (n: bigint) => Uint8Array | undefined {
    const side = new Map<bigint, Uint8Array>();
    let h: Header | undefined = parent;
    let hash = parentHash;
    for (let i = 0; h !== undefined && i < 256 && !this.store.isCanonical(hash); i++) {
      side.set(h.number, hash);
      hash = h.parentHash;
      h = this.store.headerByHash(hash);
    }
    return (n) => (n > parent.number ? undefined : (side.get(n) ?? this.store.canonicalHash(n)));
  }

  /**
   * Executes the block on the overlay and hands its diff to the hasher. Without `pipelined` the commitment is
   * awaited and checked here (the returned promise is settled); with it, `commitment` rejects later if the root is
   * wrong, and the overlay advances with the storage roots still pending (FlatState.advance).
   */
  private async execute(
    block: Block,
    hash: Uint8Array,
    parent: Header,
    reader: StateReader,
    timings: ImportTimings,
    onSideChain: boolean,
    pendingSenders: Promise<SenderResult[]> | undefined,
    blockHashes: ((n: bigint) => Uint8Array | undefined) | undefined,
    pipelined: boolean,
    keep = pipelined,
  ): Promise<{ done: Executed; commitment: Promise<TrieCommit> }> {
    // Whatever happens below, the overlay no longer holds a committed block's state until the block checks out.
    const warm = this.cachedState !== undefined && equal(this.cachedState, block.header.parentHash);
    this.cachedState = undefined;
    const state = this.executor.state;
    if (warm) state.rebase(reader);
    else state.reset(reader);
    try {
      // No read-ahead while the block before is still being hashed (pipelined import and sync): its trie is not
      // complete anywhere the hasher can read yet (a full sync between two nodes failed on a missing node with it).
      const readAhead = !pipelined;
      const done = await this.executeChecked(
        block,
        hash,
        parent,
        timings,
        onSideChain,
        pendingSenders,
        blockHashes,
        readAhead,
      );
      const t = performance.now();
      const commitment = this.commit(done, parent, reader, keep);
      if (pipelined) {
        // Checked by the next importBlock or settle(); until then nobody else awaits it.
        commitment.catch(() => {});
        if (state.advance(commitment.then((c) => c.storageRoots))) this.cachedState = hash;
        timings.stateRoot += performance.now() - t;
        return { done, commitment };
      }
      const c = await commitment;
      timings.stateRoot += performance.now() - t;
      if (state.advance(c.storageRoots)) this.cachedState = hash;
      return { done, commitment: Promise.resolve(c) };
    } catch (err) {
      state.reset(reader);
      throw err;
    }
  }

  /**
   * The block's commitment on the hasher, checked against the header (state root; for Isthmus the withdrawals root,
   * which reads `reader`, so Isthmus blocks are never pipelined). With `keep` the new nodes stay in the hasher's
   * layers until the block is written; a block found invalid gives its layer back at once.
   */
  private async commit(done: Executed, parent: Header, reader: StateReader, keep: boolean): Promise<TrieCommit> {
    const { block } = done;
    const header = block.header;
    const c = await this.hasher.commit(parent.stateRoot, done.diff, { keep });
    try {
      if (!equal(c.root, header.stateRoot))
        invalid(block, `state root mismatch: header ${hex(header.stateRoot)}, executed ${hex(c.root)}`);
      if (done.isthmus) {
        const root = messagePasserRoot(c, reader);
        if (!equal(root, header.withdrawalsRoot))
          invalid(
            block,
            `withdrawals root mismatch: header ${hex(header.withdrawalsRoot ?? new Uint8Array())}, message passer storage root ${hex(root)}`,
          );
      }
    } catch (err) {
      this.releaseLayer(c);
      throw err;
    }
    if (!keep) this.releaseLayer(c);
    return c;
  }

  private async executeChecked(
    block: Block,
    hash: Uint8Array,
    parent: Header,
    timings: ImportTimings,
    onSideChain: boolean,
    pendingSenders: Promise<SenderResult[]> | undefined,
    blockHashes: ((n: bigint) => Uint8Array | undefined) | undefined,
    readAhead: boolean,
  ): Promise<Executed> {
    const config = this.store.config();
    const header = block.header;
    // newPayload: recovery starts before the checks below, and execution on the first chunk while the pool
    // recovers the rest. Recovered ahead (import, sync), or needed whole before execution (the prefetch's
    // addresses): no stream.
    let stream: SenderStream | undefined;
    let t = performance.now();
    if (pendingSenders === undefined && !this.hasher.prefetching) {
      stream = this.senders.recoverStream(block.transactions);
      for (const c of stream.chunks) c.catch(() => {}); // a block that fails early leaves its chunks unawaited
    }
    if (readAhead && stream !== undefined && this.hasher.warming) this.warmAhead(block, parent.stateRoot, stream);
    const streamStart = performance.now() - t;
    const optimism = isOptimism(config);
    try {
      validateHeader(config, header, parent, optimism ? { optimism } : {});
    } catch (err) {
      invalid(block, (err as Error).message);
    }
    if (block.uncles.length > 0 || !equal(unclesHash(block.uncles), header.uncleHash))
      invalid(block, 'uncles are not allowed');
    if (!equal(transactionsRoot(block.transactions), header.transactionsRoot))
      invalid(block, 'transaction root hash mismatch');
    if ((header.withdrawalsRoot === undefined) !== (block.withdrawals === undefined))
      invalid(block, 'withdrawals presence does not match the header');
    // Isthmus puts the message passer's storage root in withdrawalsRoot (checked after execution).
    const isthmus = optimism && isTimeForkActive(config, 'isthmusTime', header.timestamp);
    if (isthmus && (block.withdrawals?.length ?? 0) > 0) invalid(block, 'withdrawals are not allowed on OP chains');
    if (!isthmus && block.withdrawals && !equal(withdrawalsRoot(block.withdrawals), header.withdrawalsRoot))
      invalid(block, 'withdrawals root hash mismatch');

    t = performance.now();
    let senders: Uint8Array[];
    let lookup: ((i: number) => Promise<Uint8Array>) | undefined;
    let waited = 0;
    if (stream === undefined) {
      senders = this.checkSenders(block, await (pendingSenders ?? this.senders.recover(block.transactions)));
    } else {
      const s = stream;
      senders = [];
      lookup = async (i) => {
        const w = performance.now();
        const r = await streamedSender(s, i);
        waited += performance.now() - w;
        if (r === undefined) invalid(block, `transaction ${i}: no sender recovered`);
        if (!r.ok) invalid(block, `transaction ${i}: ${r.message}`);
        return r.address;
      };
    }
    timings.senders = streamStart + performance.now() - t;

    t = performance.now();
    // The hasher warms the account-trie paths this block will change while it executes (--cache.noprefetch).
    if (this.hasher.prefetching) this.hasher.prefetch(parent.stateRoot, touchedAddresses(block.transactions, senders));
    let outcome: Awaited<ReturnType<typeof processBlock>>;
    try {
      outcome = await processBlock({
        executor: this.executor,
        config,
        block,
        senders: lookup ?? senders,
        getBlockHash: onSideChain
          ? this.ancestry(parent, header.parentHash)
          : (blockHashes ?? ((n) => this.store.canonicalHash(n))),
      });
    } catch (err) {
      if (err instanceof TernError && (err.code === 'BLOCK_INVALID_TX' || err.code === 'BLOCK_INVALID_BODY'))
        invalid(block, err.message);
      throw err;
    }
    if (stream !== undefined) {
      const w = performance.now();
      senders = this.checkSenders(block, (await Promise.all(stream.chunks)).flat());
      waited += performance.now() - w;
      timings.senders += waited;
    }
    if (outcome.gasUsed !== header.gasUsed)
      invalid(block, `gas used mismatch: header ${header.gasUsed}, executed ${outcome.gasUsed}`);
    if (header.blobGasUsed !== undefined && outcome.blobGasUsed !== header.blobGasUsed) {
      invalid(block, `blob gas used mismatch: header ${header.blobGasUsed}, executed ${outcome.blobGasUsed}`);
    }
    // Stored as encodeReceipt gives them; the root's encoding differs for some deposit receipts only.
    const forRoot = outcome.receipts.map(encodeReceiptForRoot);
    const encodedReceipts = outcome.receipts.map((r, i) =>
      r.type === DEPOSIT_TX_TYPE ? encodeReceipt(r) : forRoot[i]!,
    );
    const receiptsRoot = orderedTrieRoot(forRoot);
    if (!equal(receiptsRoot, header.receiptsRoot))
      invalid(block, `receipt root mismatch: header ${hex(header.receiptsRoot)}, executed ${hex(receiptsRoot)}`);
    if (!equal(outcome.logsBloom, header.logsBloom)) invalid(block, 'logs bloom mismatch');
    const requestsHash = (outcome as { requestsHash?: Uint8Array }).requestsHash;
    if (requestsHash !== undefined && header.requestsHash !== undefined && !equal(requestsHash, header.requestsHash))
      invalid(block, `requests hash mismatch: header ${hex(header.requestsHash)}, executed ${hex(requestsHash)}`);
    const diff = this.executor.state.diff();
    timings.execution = performance.now() - t - waited;
    return { block, hash, receipts: outcome.receipts, diff, senders, isthmus, encodedReceipts };
  }

  /**
   * Has the hasher read, on its thread and while the block executes, the accounts the block will change (their
   * storage roots are what the commitment reads from the parent's trie): the fee recipient and the addresses the
   * transactions name at once, each chunk's senders once recovered. Accounts only execution reveals (a contract's
   * callees) are read by the commitment as before.
   */
  private warmAhead(block: Block, stateRoot: Uint8Array, stream: SenderStream): void {
    const seen = new Set<string>();
    const fresh = (list: readonly Uint8Array[]) =>
      list.filter((a) => {
        const key = Buffer.from(a.buffer, a.byteOffset, a.length).toString('latin1');
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    const named: Uint8Array[] = [block.header.coinbase];
    for (const raw of block.transactions) txAddresses(raw, named);
    this.hasher.warm(stateRoot, fresh(named));
    for (const chunk of stream.chunks) {
      chunk.then(
        (results) => this.hasher.warm(stateRoot, fresh(results.flatMap((r) => (r.ok ? [r.address] : [])))),
        () => {},
      );
    }
  }

  /** The senders of a block's transactions; a signature that does not recover makes the block invalid. */
  private checkSenders(block: Block, recovered: SenderResult[]): Uint8Array[] {
    if (recovered.length !== block.transactions.length)
      throw new TernError(
        'BLOCK_SENDERS',
        `${recovered.length} senders recovered for ${block.transactions.length} txs`,
      );
    return recovered.map((r, i) => {
      if (!r.ok) invalid(block, `transaction ${i}: ${r.message}`);
      return r.address;
    });
  }
}

/** What ChainStore writes for an executed block whose commitment checked out. */
function blockCommit(done: Executed, c: TrieCommit): BlockCommit {
  return {
    block: done.block,
    hash: done.hash,
    receipts: done.receipts,
    encodedReceipts: done.encodedReceipts,
    diff: done.diff,
    storageRoots: c.storageRoots,
    newNodes: c.newNodes,
  };
}

/** The L2ToL1MessagePasser's storage root after a block: from the block's commitment, else as it was. */
export function messagePasserRoot(commitment: StateCommitmentResult, before: StateReader): Uint8Array {
  const changed = commitment.storageRoots.get(L2_TO_L1_MESSAGE_PASSER);
  if (changed !== undefined) return changed;
  const address = Uint8Array.from(Buffer.from(L2_TO_L1_MESSAGE_PASSER.slice(2), 'hex'));
  return before.getAccount(address)?.storageRoot ?? EMPTY_TRIE_ROOT;
}
