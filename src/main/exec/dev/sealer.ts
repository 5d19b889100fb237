// The --dev chain's block producer (geth's simulated beacon): builds a block on the head from the pool and makes
// it the head, either as soon as transactions are pending (period 0) or once per period, empty blocks included.
// With period 0 (geth's simulated beacon on demand) a block is sealed only while transactions are pending, and one
// block takes every pending transaction that fits: no empty blocks, and announcements that arrive while a block is
// being sealed make one more seal, not one each. Once stop() is called nothing more is sealed: the seal under way
// finishes, queued ones are dropped, before the database closes.
//
// Each block sits on a whole beacon slot (timestamp = genesis + slot · SECONDS_PER_SLOT, later than its parent),
// carries a random prevRandao, no withdrawals and the previous beacon block's root, and its blob sidecars are
// taken from the pool before the pool forgets them, for the beacon endpoints.
//
// Safe and finalized follow geth's simulated beacon (eth/catalyst/simulated_beacon.go): every sealed block is
// marked safe, and the finalized block is the latest one whose number is a multiple of the epoch length (32), a
// block at an epoch boundary being finalized as soon as it is sealed.
//
// reorg(depth) is the dev chain's anvil_reorg: the last `depth` blocks are taken off the chain (never past the
// finalized block) and as many replacement blocks are sealed at the same slots, empty, so the chain keeps its
// height and every replaced block gets a new hash. The pool re-injects the dropped transactions it can (geth's
// rule: not blob transactions, whose sidecars are gone), so they land again in later blocks; the beacon record is
// rewound with the chain, so the replaced blocks' sidecars are no longer served.
import { randomBytes } from 'node:crypto';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { keccak256 } from '../../native/keccak.js';
import { toHex as hex } from '../../primitives/bytes.js';
import type { BlockBuilder } from '../chain/builder.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { BlobSidecar } from '../txpool/sidecar.js';
import { type DevBeacon, type DevBeaconBlock, type DevBlobSidecar, versionedHash } from './beacon.js';
import type { DevSidecarStore } from './sidecarStore.js';

/** What the sealer needs from the transaction pool (TernTxPool has it). */
export interface SealerPool {
  subscribe(listener: (hash: Uint8Array) => void): () => void;
  status(): { pending: number };
  blobSidecar(hash: Uint8Array): BlobSidecar | undefined;
  onNewHead(): Promise<void>;
}

export interface DevSealerOptions {
  /** --dev.period in seconds; 0 seals when transactions are pending. */
  period: number;
  /** The coinbase of sealed blocks (geth's dev mode: the zero address). */
  feeRecipient?: Uint8Array;
  /** Current time in ms (tests). */
  now?: () => number;
  /** Blocks per finality epoch (geth's dev mode: 32). */
  epochLength?: number;
}

/** geth's devEpochLength: the simulated beacon finalizes the latest block whose number is a multiple of it. */
export const DEV_EPOCH_LENGTH = 32;

/** The finalized block number once `head` is sealed (geth's SimulatedBeacon.finalizedBlockHash). */
export function devFinalizedNumber(head: bigint, epochLength: number = DEV_EPOCH_LENGTH): bigint {
  const epoch = BigInt(epochLength);
  if (head % epoch === 0n) return head;
  return ((head - 1n) / epoch) * epoch;
}

/** What reorg did. */
export interface DevReorg {
  depth: number;
  /** The head before and after, and the common ancestor the replacement blocks were sealed on. */
  oldHead: { number: bigint; hash: Uint8Array };
  newHead: { number: bigint; hash: Uint8Array };
  ancestor: { number: bigint; hash: Uint8Array };
  /** Hashes of the transactions of the replaced blocks (none of them is in a replacement block). */
  dropped: Uint8Array[];
}

export interface SealedBlock {
  number: bigint;
  hash: Uint8Array;
  txs: number;
  beacon: DevBeaconBlock;
}

/** A pending-transaction burst is sealed together: wait this long after the first announcement. */
const COALESCE_MS = 5;

export class DevSealer {
  readonly #now: () => number;
  readonly #epochLength: number;
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  /** Period 0: a seal is scheduled or under way. */
  #scheduled = false;
  /** Period 0: transactions were announced while a seal was scheduled or under way. */
  #announced = false;

  constructor(
    private readonly opts: DevSealerOptions,
    private readonly store: ChainStore,
    private readonly builder: BlockBuilder,
    private readonly pool: SealerPool,
    private readonly beacon: DevBeacon,
    private readonly deps: { logger: Logger; sidecars?: DevSidecarStore | undefined },
  ) {
    this.#now = opts.now ?? Date.now;
    this.#epochLength = opts.epochLength ?? DEV_EPOCH_LENGTH;
    if (!Number.isSafeInteger(this.#epochLength) || this.#epochLength <= 0)
      throw new TernError('DEV_SEALER', `the epoch length must be a positive integer, got ${this.#epochLength}`);
  }

  /** Starts sealing: on pending transactions (period 0) or on every slot (period N). */
  start(): void {
    // The head as it is (genesis, or the chain of a --datadir) is safe and its epoch's first block final.
    this.#enqueue(() => this.#markHeads()).catch((err: unknown) =>
      this.deps.logger.error('Marking the safe and finalized blocks failed', { err: (err as Error).message }),
    );
    if (this.opts.period === 0) {
      this.#unsubscribe = this.pool.subscribe(() => this.#schedule());
      if (this.pool.status().pending > 0) this.#schedule();
    } else {
      this.#arm();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    if (this.#timer) clearTimeout(this.#timer);
    await this.#queue.catch(() => undefined);
  }

  /** The slot the next block goes in: the one after the head's, or the current one when time has moved past it. */
  nextSlot(): bigint {
    const head = this.store.head().header;
    const after = this.beacon.slotOf(head.timestamp) + 1n;
    const nowSec = BigInt(Math.floor(this.#now() / 1000));
    const elapsed = nowSec > this.beacon.genesisTime ? nowSec - this.beacon.genesisTime : 0n;
    const current = elapsed / BigInt(this.beacon.secondsPerSlot);
    return current > after ? current : after;
  }

  /** Seals one block now (one seal at a time), empty or not. */
  seal(): Promise<SealedBlock> {
    return this.#enqueue(async () => (await this.#sealNow(false)) as SealedBlock);
  }

  /** Replaces the last `depth` blocks with as many empty blocks at the same slots (after any seal under way). */
  reorg(depth: number): Promise<DevReorg> {
    return this.#enqueue(() => this.#reorgNow(depth));
  }

  /** The finalized block number for a head (the epoch rule). */
  finalizedNumber(head: bigint): bigint {
    return devFinalizedNumber(head, this.#epochLength);
  }

  #enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(() => {
      // Jobs still queued when the node stops are dropped: the database is about to close.
      if (this.#stopped) throw new TernError('DEV_SEALER_STOPPED', 'the dev sealer is stopped');
      return job();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Marks the head safe and the latest epoch-boundary block finalized (one forkchoice update of geth's). */
  async #markHeads(): Promise<void> {
    const head = this.store.head();
    const finalized = this.store.canonicalHash(this.finalizedNumber(head.number));
    await this.store.setForkchoiceMarkers(head.hash, finalized);
  }

  async #reorgNow(depth: number): Promise<DevReorg> {
    const old = this.store.head();
    if (!Number.isSafeInteger(depth) || depth < 1)
      throw new TernError('DEV_REORG', `the reorg depth must be a positive integer, got ${depth}`);
    const finalized = this.finalizedNumber(old.number);
    if (BigInt(depth) > old.number - finalized)
      throw new TernError(
        'DEV_REORG',
        `a reorg of ${depth} blocks from head #${old.number} would replace the finalized block #${finalized}; at most ${old.number - finalized} blocks can be replaced now`,
      );
    const ancestorNumber = old.number - BigInt(depth);
    const ancestorHash = this.store.canonicalHash(ancestorNumber);
    if (ancestorHash === undefined) throw new TernError('DEV_REORG', `block #${ancestorNumber} is missing`);
    const replaced: Array<{ timestamp: bigint; txs: Uint8Array[] }> = [];
    for (let n = ancestorNumber + 1n; n <= old.number; n++) {
      const block = this.store.blockByNumber(n);
      if (block === undefined) throw new TernError('DEV_REORG', `block #${n} is missing`);
      replaced.push({ timestamp: block.header.timestamp, txs: block.transactions.map((t) => keccak256(t)) });
    }
    await this.store.setHead(ancestorHash);
    this.beacon.rewind(ancestorNumber);
    // The pool takes back what the dropped blocks included (and it can re-inject) before the new blocks are built.
    await this.pool.onNewHead();
    for (const r of replaced) {
      const parent = this.store.head();
      const built = await this.builder.build(parent.hash, {
        timestamp: r.timestamp,
        prevRandao: new Uint8Array(randomBytes(32)),
        feeRecipient: this.opts.feeRecipient ?? new Uint8Array(20),
        withdrawals: [],
        parentBeaconBlockRoot: this.beacon.headRoot(),
        noTxPool: true,
      });
      await this.store.commitBlock({
        block: built.block,
        hash: built.hash,
        receipts: built.receipts,
        diff: built.diff,
        storageRoots: built.commitment.storageRoots,
        newNodes: built.commitment.newNodes,
      });
      const h = built.block.header;
      this.beacon.add({ number: h.number, hash: built.hash, timestamp: h.timestamp, stateRoot: h.stateRoot });
    }
    await this.pool.onNewHead();
    await this.#markHeads();
    const head = this.store.head();
    const dropped = replaced.flatMap((r) => r.txs);
    this.deps.logger.warn('Reorganised the dev chain', {
      depth,
      ancestor: ancestorNumber,
      oldHead: hex(old.hash),
      newHead: hex(head.hash),
      dropped: dropped.length,
    });
    return {
      depth,
      oldHead: { number: old.number, hash: old.hash },
      newHead: { number: head.number, hash: head.hash },
      ancestor: { number: ancestorNumber, hash: ancestorHash },
      dropped,
    };
  }

  /** Builds and commits a block; with `skipEmpty`, a block without transactions is dropped (undefined). */
  async #sealNow(skipEmpty: boolean): Promise<SealedBlock | undefined> {
    if (skipEmpty && this.pool.status().pending === 0) return undefined;
    const parent = this.store.head();
    const slot = this.nextSlot();
    const built = await this.builder.build(parent.hash, {
      timestamp: this.beacon.timeOf(slot),
      prevRandao: new Uint8Array(randomBytes(32)),
      feeRecipient: this.opts.feeRecipient ?? new Uint8Array(20),
      withdrawals: [],
      parentBeaconBlockRoot: this.beacon.headRoot(),
    });
    if (skipEmpty && built.block.transactions.length === 0) return undefined;
    const sidecars = this.#sidecarsOf(built.block.transactions);
    // On disk before the block is: a restart never finds a sealed blob block without its sidecars.
    this.deps.sidecars?.put(built.block.header.number, built.hash, sidecars);
    await this.store.commitBlock({
      block: built.block,
      hash: built.hash,
      receipts: built.receipts,
      diff: built.diff,
      storageRoots: built.commitment.storageRoots,
      newNodes: built.commitment.newNodes,
    });
    const h = built.block.header;
    const beacon = this.beacon.add(
      { number: h.number, hash: built.hash, timestamp: h.timestamp, stateRoot: h.stateRoot },
      sidecars,
    );
    // commitBlock announced the head; wait until the pool has dropped what this block included.
    await this.pool.onNewHead();
    await this.#markHeads();
    const txs = built.block.transactions.length;
    this.deps.logger.info('Sealed block', {
      number: h.number,
      hash: hex(built.hash),
      txs,
      gas: h.gasUsed,
      blobs: sidecars.length,
      slot,
    });
    return { number: h.number, hash: built.hash, txs, beacon };
  }

  /** The sidecars of a block's blob transactions, in block order (the order of its versioned hashes). */
  #sidecarsOf(transactions: readonly Uint8Array[]): DevBlobSidecar[] {
    const out: DevBlobSidecar[] = [];
    for (const raw of transactions) {
      if (raw[0] !== 3) continue;
      const hash = keccak256(raw);
      const sc = this.pool.blobSidecar(hash);
      if (sc?.version !== 0) {
        this.deps.logger.warn('Blob transaction sealed without a sidecar the beacon API can serve', {
          tx: hex(hash),
          version: sc?.version,
        });
        continue;
      }
      sc.blobs.forEach((blob, i) => {
        const commitment = sc.commitments[i] as Uint8Array;
        out.push({ blob, commitment, proof: sc.proofs[i] as Uint8Array, versionedHash: versionedHash(commitment) });
      });
    }
    return out;
  }

  /**
   * Period 0: seal soon; one seal at a time, again after it while transactions are pending and either the block
   * took some or new ones were announced meanwhile (pending ones no block can take do not make empty blocks).
   */
  #schedule(): void {
    if (this.#stopped) return;
    if (this.#scheduled) {
      this.#announced = true;
      return;
    }
    this.#scheduled = true;
    this.#announced = false;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#enqueue(() => this.#sealNow(true)).then(
        (b) => {
          this.#scheduled = false;
          const again = (b !== undefined && b.txs > 0) || this.#announced;
          if (again && this.pool.status().pending > 0) this.#schedule();
        },
        (err: unknown) => {
          this.#scheduled = false;
          this.#sealFailed(err);
        },
      );
    }, COALESCE_MS);
    this.#timer.unref();
  }

  /** Period N: a timer for the start of the next slot. */
  #arm(): void {
    if (this.#stopped) return;
    const at = Number(this.beacon.timeOf(this.nextSlot())) * 1000;
    this.#timer = setTimeout(
      () => {
        void this.seal()
          .catch((err: unknown) => this.#sealFailed(err))
          .finally(() => this.#arm());
      },
      Math.max(0, at - this.#now()),
    );
  }

  /** A failed seal is an error, unless the node is stopping (the seal was dropped, not failed). */
  #sealFailed(err: unknown): void {
    if (this.#stopped) return;
    this.deps.logger.error('Sealing failed', { err: (err as Error).message });
  }
}
