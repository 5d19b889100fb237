// The --dev chain's block producer (geth's simulated beacon): builds a block on the head from the pool and makes
// it the head, either as soon as transactions are pending (period 0) or once per period, empty blocks included.
// Each block sits on a whole beacon slot (timestamp = genesis + slot · SECONDS_PER_SLOT, later than its parent),
// carries a random prevRandao, no withdrawals and the previous beacon block's root, and its blob sidecars are
// taken from the pool before the pool forgets them, for the beacon endpoints.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../common/logger/index.js';
import { keccak256 } from '../../native/keccak.js';
import type { BlockBuilder } from '../chain/builder.js';
import type { ChainStore } from '../chain/chainStore.js';
import type { BlobSidecar } from '../txpool/sidecar.js';
import { type DevBeacon, type DevBeaconBlock, type DevBlobSidecar, versionedHash } from './beacon.js';

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
}

export interface SealedBlock {
  number: bigint;
  hash: Uint8Array;
  txs: number;
  beacon: DevBeaconBlock;
}

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
/** A pending-transaction burst is sealed together: wait this long after the first announcement. */
const COALESCE_MS = 5;

export class DevSealer {
  readonly #now: () => number;
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #stopped = false;
  #scheduled = false;

  constructor(
    private readonly opts: DevSealerOptions,
    private readonly store: ChainStore,
    private readonly builder: BlockBuilder,
    private readonly pool: SealerPool,
    private readonly beacon: DevBeacon,
    private readonly deps: { logger: Logger },
  ) {
    this.#now = opts.now ?? Date.now;
  }

  /** Starts sealing: on pending transactions (period 0) or on every slot (period N). */
  start(): void {
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

  /** Seals one block now (one seal at a time). */
  seal(): Promise<SealedBlock> {
    const run = this.#queue.then(() => this.#sealNow());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #sealNow(): Promise<SealedBlock> {
    const parent = this.store.head();
    const slot = this.nextSlot();
    const built = await this.builder.build(parent.hash, {
      timestamp: this.beacon.timeOf(slot),
      prevRandao: new Uint8Array(randomBytes(32)),
      feeRecipient: this.opts.feeRecipient ?? new Uint8Array(20),
      withdrawals: [],
      parentBeaconBlockRoot: this.beacon.headRoot(),
    });
    const sidecars = this.#sidecarsOf(built.block.transactions);
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

  /** Period 0: seal soon, then again while pending transactions keep making it into blocks. */
  #schedule(): void {
    if (this.#scheduled || this.#stopped) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      void this.seal().then(
        (b) => {
          if (b.txs > 0 && this.pool.status().pending > 0) this.#schedule();
        },
        (err: unknown) => this.deps.logger.error('Sealing failed', { err: (err as Error).message }),
      );
    }, COALESCE_MS).unref();
  }

  /** Period N: a timer for the start of the next slot. */
  #arm(): void {
    if (this.#stopped) return;
    const at = Number(this.beacon.timeOf(this.nextSlot())) * 1000;
    this.#timer = setTimeout(
      () => {
        void this.seal()
          .catch((err: unknown) => this.deps.logger.error('Sealing failed', { err: (err as Error).message }))
          .finally(() => this.#arm());
      },
      Math.max(0, at - this.#now()),
    );
  }
}
