// The transaction pool (geth's legacypool and blobpool behind one TxPool): per account, `pending` holds the
// transactions executable in nonce order from the account's state nonce and `queued` the rest; new transactions
// enter the queue (or replace a pending one with --txpool.pricebump) and are promoted when the gap fills. Limits as
// geth applies them: --txpool.accountqueue per account, --txpool.globalqueue by oldest activity, --txpool.globalslots
// by trimming the accounts above --txpool.accountslots, a full pool evicting its cheapest remote transactions,
// queued accounts idle longer than --txpool.lifetime dropped. Locals (RPC submissions, --txpool.locals) are exempt
// from the price limit and the evictions and are journaled. Blob transactions follow the blob pool's rules: no
// nonce gaps, an account uses one of the two kinds at a time, all fee fields bumped by --blobpool.pricebump, the
// sidecars kept in the blob store under --blobpool.datacap.
import type { Logger } from '../../common/logger/index.js';
import { keccak256 } from '../../native/keccak.js';
import { blobBaseFee as calcBlobBaseFee } from '../../primitives/block/fees.js';
import type { Header } from '../../primitives/block/header.js';
import { toHex as hex } from '../../primitives/bytes.js';
import { blobParamsAt } from '../../primitives/chainConfig.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import { recoverSender } from '../../protocol/senders/recover.js';
import { minBigint } from '../evm/fees.js';
import type { SenderResult } from '../senders/interface.js';
import { type AdmissionChecks, inlineAdmission } from './admission.js';
import { BlobStore } from './blobStore.js';
import type { PoolChain, PoolChainView, PoolHead } from './chain.js';
import { PoolErrors, reject, TX_REJECTED_CODE, TxRejected } from './errors.js';
import type { AddResult, BlockTxFilter, PendingIterator, PendingTx, TxPool } from './interface.js';
import { TxJournal } from './journal.js';
import { sanitizeTxPoolOptions, type TxPoolOptions } from './options.js';
import {
  type BlobSidecar,
  checkSidecarShape,
  joinBlobTx,
  proofVerdict,
  splitBlobTx,
  validateSidecar,
} from './sidecar.js';
import {
  BLOB_TX_MAX_SIZE,
  feeCapOf,
  numSlots,
  TX_MAX_SIZE,
  tipCapOf,
  txCost,
  validateBasics,
  validateWithState,
} from './validate.js';

/**
 * What admission computed ahead of the pool's serial part, off this thread: the split and decoded transaction,
 * its sender (unless its chain id is wrong) and the verdict on its sidecar's proofs (when its shape was right).
 */
interface Prechecked {
  consensus: Uint8Array;
  sidecar: BlobSidecar | undefined;
  tx: DecodedTx;
  sender?: SenderResult;
  proofs?: { ok: boolean } | { error: string };
}

/** geth's blob pool: most transactions one account may pool. */
const MAX_BLOB_TXS_PER_ACCOUNT = 16;
/** Deepest reorg whose dropped transactions are re-injected (geth: 64 blocks). */
const MAX_REORG_DEPTH = 64n;

/** A pooled transaction with what the pool derives from it once. */
export interface PoolTx {
  readonly tx: DecodedTx;
  readonly sender: Uint8Array;
  readonly senderHex: string;
  readonly hashHex: string;
  readonly size: number;
  readonly slots: number;
  readonly cost: bigint;
  readonly local: boolean;
  readonly sidecar: BlobSidecar | undefined;
  /** When the pool first saw it (ms), the tie-break between equal prices. */
  readonly time: number;
}

class Account {
  readonly pending = new Map<bigint, PoolTx>();
  readonly queued = new Map<bigint, PoolTx>();
  beat = 0;
  get size(): number {
    return this.pending.size + this.queued.size;
  }
  isBlob(): boolean {
    for (const t of this.pending.values()) return t.tx.type === 3;
    for (const t of this.queued.values()) return t.tx.type === 3;
    return false;
  }
}

const byNonce = (m: Map<bigint, PoolTx>): PoolTx[] =>
  [...m.values()].sort((a, b) => (a.tx.nonce < b.tx.nonce ? -1 : a.tx.nonce > b.tx.nonce ? 1 : 0));

/** min(tip, feeCap - baseFee): what a miner earns per gas. */
export function effectiveTip(tx: DecodedTx, baseFee: bigint | undefined): bigint {
  const tip = tipCapOf(tx);
  if (baseFee === undefined) return tip;
  return minBigint(feeCapOf(tx) - baseFee, tip);
}

export interface TxPoolDeps {
  logger: Logger;
  /** Where signatures and blob proofs are checked (the worker pools in a node); this thread by default. */
  admission?: AdmissionChecks | undefined;
  /** Milliseconds clock (tests move it). */
  now?: () => number;
}

export interface PoolStatus {
  pending: number;
  queued: number;
}

export interface PoolContent {
  pending: Map<string, PoolTx[]>;
  queued: Map<string, PoolTx[]>;
}

export class TernTxPool implements TxPool {
  readonly options: TxPoolOptions;
  readonly #chain: PoolChain;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #accounts = new Map<string, Account>();
  readonly #all = new Map<string, PoolTx>();
  /** Hashes of the transactions in some account's pending run. */
  readonly #pendingHashes = new Set<string>();
  readonly #locals: Set<string>;
  readonly #listeners = new Set<(hash: Uint8Array) => void>();
  readonly #journal: TxJournal | undefined;
  readonly #blobs: BlobStore;
  readonly #admission: AdmissionChecks;
  /** Signatures asked for in this event-loop turn: recovered together (one batch for the pool) in the next. */
  #signatures: { raws: Uint8Array[]; done: Promise<SenderResult[]> } | undefined;
  #head: PoolHead;
  #slots = 0;
  #timers: NodeJS.Timeout[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  private constructor(chain: PoolChain, opts: TxPoolOptions, deps: TxPoolDeps) {
    this.options = opts;
    this.#chain = chain;
    this.#logger = deps.logger;
    this.#now = deps.now ?? Date.now;
    this.#admission = deps.admission ?? inlineAdmission;
    this.#locals = new Set(opts.noLocals ? [] : opts.locals);
    this.#journal = opts.journal !== undefined && !opts.noLocals ? new TxJournal(opts.journal) : undefined;
    this.#blobs = new BlobStore(opts.blobDataDir);
    const view = chain.view();
    try {
      this.#head = view.head();
    } finally {
      view.release();
    }
  }

  /** Opens the pool: re-adds the journal's and the blob store's transactions, starts the eviction timers. */
  static async open(chain: PoolChain, opts: Partial<TxPoolOptions>, deps: TxPoolDeps): Promise<TernTxPool> {
    const pool = new TernTxPool(chain, sanitizeTxPoolOptions(opts), deps);
    await pool.#restore();
    pool.#startTimers();
    return pool;
  }

  async #restore(): Promise<void> {
    let blobs = 0;
    for (const r of await this.addBatch(this.#blobs.takeStored())) if (r.ok) blobs++;
    let locals = 0;
    const loaded = this.#journal?.load() ?? [];
    for (const r of await this.addBatch(loaded, { local: true, fromJournal: true })) if (r.ok) locals++;
    if (loaded.length > 0 || blobs > 0) {
      this.#logger.info('Loaded pooled transactions', { journaled: loaded.length, added: locals, blobs });
    }
    this.#rejournal();
  }

  #startTimers(): void {
    const evict = setInterval(() => this.#evictStale(), this.options.evictionIntervalMs);
    const rejournal = setInterval(() => this.#rejournal(), this.options.rejournalMs);
    evict.unref();
    rejournal.unref();
    this.#timers = [evict, rejournal];
  }

  // ---- TxPool ----

  async add(raw: Uint8Array, opts: { local?: boolean; fromJournal?: boolean } = {}): Promise<AddResult> {
    return (await this.addBatch([raw], opts))[0] as AddResult;
  }

  /**
   * Adds transactions that arrived together, answering for each in order. Their signatures and blob proofs are
   * checked at once, off this thread, while earlier additions are admitted; admission itself is serialised: each
   * transaction sees the pool as the previous one left it.
   */
  addBatch(raws: readonly Uint8Array[], opts: { local?: boolean; fromJournal?: boolean } = {}): Promise<AddResult[]> {
    const checked = this.#precheck(raws);
    const run = this.#queue.then(async () => {
      // A failed precheck (a pool shut down) leaves every check to admission, here.
      const pre = await checked.catch(() => undefined);
      const out: AddResult[] = [];
      for (let i = 0; i < raws.length; i++) out.push(this.#addNow(raws[i] as Uint8Array, opts, pre?.[i]));
      return out;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Senders of `raws`, recovered with those of every other addition of this event-loop turn: concurrent
   * eth_sendRawTransaction calls make one batch, which goes to the sender pool once it is large enough.
   */
  #recoverTogether(raws: readonly Uint8Array[]): Promise<SenderResult[]> {
    let batch = this.#signatures;
    if (batch === undefined) {
      const all: Uint8Array[] = [];
      batch = {
        raws: all,
        done: new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
          this.#signatures = undefined;
          return this.#admission.senders(all);
        }),
      };
      this.#signatures = batch;
    }
    const start = batch.raws.length;
    batch.raws.push(...raws);
    return batch.done.then((all) => all.slice(start, start + raws.length));
  }

  /** The checks of `raws` that need no pool state, on the admission pools; undefined where decoding failed. */
  async #precheck(raws: readonly Uint8Array[]): Promise<Array<Prechecked | undefined>> {
    const out: Array<Prechecked | undefined> = [];
    const recover: Prechecked[] = [];
    const proofs: Promise<void>[] = [];
    for (const raw of raws) {
      let pre: Prechecked | undefined;
      try {
        let consensus = raw;
        let sidecar: BlobSidecar | undefined;
        if (raw[0] === 3) ({ consensus, sidecar } = splitBlobTx(raw));
        pre = { consensus, sidecar, tx: decodeTransaction(consensus) };
      } catch {
        // Admission reports the same error.
      }
      out.push(pre);
      if (pre === undefined) continue;
      if (pre.tx.chainId === undefined || pre.tx.chainId === this.#chain.config.chainId) recover.push(pre);
      if (pre.sidecar?.version === 0 && pre.tx.type === 3 && shapeOk(pre.tx, pre.sidecar)) {
        const p = pre;
        proofs.push(
          this.#admission.blobProofs(pre.sidecar).then(
            (ok) => {
              p.proofs = { ok };
            },
            (err: unknown) => {
              p.proofs = { error: err instanceof Error ? err.message : String(err) };
            },
          ),
        );
      }
    }
    const senders = recover.length === 0 ? [] : await this.#recoverTogether(recover.map((p) => p.consensus));
    senders.forEach((r, i) => {
      (recover[i] as Prechecked).sender = r;
    });
    await Promise.all(proofs);
    return out;
  }

  pendingForBlock(filter: BlockTxFilter): PendingIterator {
    const minFilter = (t: PoolTx): boolean => {
      if (feeCapOf(t.tx) < filter.baseFee) return false;
      if (t.tx.type === 3) {
        if (filter.blobBaseFee === undefined) return false;
        if ((t.tx.maxFeePerBlobGas ?? 0n) < filter.blobBaseFee) return false;
      }
      return true;
    };
    type Run = { sender: Uint8Array; key: string; txs: PoolTx[]; i: number; local: boolean };
    const runs: Run[] = [];
    for (const [key, acct] of this.#accounts) {
      const txs: PoolTx[] = [];
      for (const t of byNonce(acct.pending)) {
        if (!minFilter(t)) break;
        txs.push(t);
      }
      const first = txs[0];
      if (first) runs.push({ sender: first.sender, key, txs, i: 0, local: this.#isLocalKey(key) });
    }
    const skipped = new Set<string>();
    const price = (r: Run) => effectiveTip((r.txs[r.i] as PoolTx).tx, filter.baseFee);
    // Locals first (priority inclusion), then by tip, then by arrival.
    const better = (a: Run, b: Run): boolean => {
      if (a.local !== b.local) return a.local;
      const pa = price(a);
      const pb = price(b);
      if (pa !== pb) return pa > pb;
      return (a.txs[a.i] as PoolTx).time < (b.txs[b.i] as PoolTx).time;
    };
    const heap = new Heap<Run>(better);
    for (const r of runs) heap.push(r);
    const gasLimit = filter.gasLimit;
    return {
      skipSender(sender: Uint8Array): void {
        skipped.add(hex(sender));
      },
      *[Symbol.iterator](): Iterator<PendingTx> {
        while (heap.size > 0) {
          const top = heap.peek() as Run;
          const t = top.txs[top.i] as PoolTx;
          if (skipped.has(top.key) || t.tx.gasLimit > gasLimit) {
            heap.pop();
            continue;
          }
          yield { tx: t.tx, sender: t.sender };
          if (skipped.has(top.key) || ++top.i >= top.txs.length) heap.pop();
          else heap.fix();
        }
      },
    };
  }

  onNewHead(): Promise<void> {
    const run = this.#queue.then(() => this.#reset());
    this.#queue = run.catch(() => undefined);
    return run;
  }

  subscribe(listener: (hash: Uint8Array) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    await this.#queue;
    this.#rejournal();
  }

  // ---- reads for the RPC (txpool_*, eth_getTransactionByHash, pending nonce) ----

  get(hash: Uint8Array): PoolTx | undefined {
    return this.#all.get(hex(hash));
  }

  /** The sidecar of a pooled blob transaction (getPayload's blobs bundle). */
  blobSidecar(hash: Uint8Array): BlobSidecar | undefined {
    return this.#all.get(hex(hash))?.sidecar;
  }

  /** The next nonce for `address` counting its pending transactions (eth_getTransactionCount 'pending'). */
  pendingNonce(address: Uint8Array, stateNonce: bigint): bigint {
    const acct = this.#accounts.get(hex(address));
    if (!acct || acct.pending.size === 0) return stateNonce;
    let max = -1n;
    for (const n of acct.pending.keys()) if (n > max) max = n;
    return max + 1n > stateNonce ? max + 1n : stateNonce;
  }

  status(): PoolStatus {
    let pending = 0;
    let queued = 0;
    for (const a of this.#accounts.values()) {
      pending += a.pending.size;
      queued += a.queued.size;
    }
    return { pending, queued };
  }

  /** Slots (32 KiB units) taken by the non-blob transactions (geth's txpool/slots). */
  get slots(): number {
    return this.#slots;
  }

  /** Transactions whose sender is local (geth's txpool/local). */
  localCount(): number {
    let n = 0;
    for (const [key, a] of this.#accounts) if (this.#isLocalKey(key)) n += a.size;
    return n;
  }

  content(address?: Uint8Array): PoolContent {
    const out: PoolContent = { pending: new Map(), queued: new Map() };
    const keys = address ? [hex(address)] : [...this.#accounts.keys()];
    for (const key of keys) {
      const a = this.#accounts.get(key);
      if (!a) continue;
      if (a.pending.size > 0) out.pending.set(key, byNonce(a.pending));
      if (a.queued.size > 0) out.queued.set(key, byNonce(a.queued));
    }
    return out;
  }

  /** The network form of a pooled transaction (with its sidecar for blob transactions). */
  networkForm(t: PoolTx): Uint8Array {
    return t.sidecar ? joinBlobTx(t.tx.raw, t.sidecar) : t.tx.raw;
  }

  // ---- admission ----

  #isLocalKey(senderHex: string): boolean {
    return this.#locals.has(senderHex);
  }

  #addNow(raw: Uint8Array, opts: { local?: boolean; fromJournal?: boolean }, pre?: Prechecked): AddResult {
    try {
      const hash = this.#admit(raw, opts, pre);
      return { ok: true, hash };
    } catch (err) {
      if (err instanceof TxRejected) return { ok: false, code: err.rpcCode, message: err.message };
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, code: TX_REJECTED_CODE, message };
    }
  }

  #admit(raw: Uint8Array, opts: { local?: boolean; fromJournal?: boolean }, pre?: Prechecked): Uint8Array {
    if (raw.length === 0) reject('typed transaction too short');
    let consensus = raw;
    let sidecar: BlobSidecar | undefined;
    if (pre !== undefined) ({ consensus, sidecar } = pre);
    else if (raw[0] === 3) ({ consensus, sidecar } = splitBlobTx(raw));
    const tx = pre?.tx ?? decodeTransaction(consensus);
    if (tx.type > 4) reject(`${PoolErrors.txTypeNotSupported}: tx type ${tx.type} not supported by this pool`);
    const hashHex = hex(tx.hash);
    if (this.#all.has(hashHex)) reject(PoolErrors.alreadyKnown);
    const config = this.#chain.config;
    let sender: Uint8Array;
    try {
      if (tx.chainId !== undefined && tx.chainId !== config.chainId) {
        throw new Error(`invalid chain id for signer: have ${tx.chainId} want ${config.chainId}`);
      }
      const r = pre?.sender ?? recoverInline(consensus);
      if (!r.ok) throw new Error(r.message);
      sender = r.address;
    } catch (err) {
      reject(`${PoolErrors.invalidSender}: ${(err as Error).message}`);
    }
    const senderHex = hex(sender);
    if (opts.local && !this.options.noLocals && !this.#locals.has(senderHex)) this.#locals.add(senderHex);
    const local = this.#isLocalKey(senderHex);
    const head = this.#head.header;
    const isBlob = tx.type === 3;
    validateBasics(tx, consensus.length, {
      config,
      head,
      maxSize: isBlob ? BLOB_TX_MAX_SIZE : TX_MAX_SIZE,
      minTip: local ? 0n : this.options.priceLimit,
      maxTxGas: this.options.maxTxGas,
      maxBlobs: blobParamsAt(config, head.timestamp)?.max ?? 6,
    });
    // Refused rather than parked (geth parks them): a fee cap below the head's base fee cannot be included now, and
    // the caller learns it at once with the state transition's error text. Journal reloads keep what they had.
    const baseFee = head.baseFeePerGas;
    if (!opts.fromJournal && baseFee !== undefined && feeCapOf(tx) < baseFee) {
      reject(
        `max fee per gas less than block base fee: address ${senderHex}, maxFeePerGas: ${feeCapOf(tx)}, baseFee: ${baseFee}`,
      );
    }
    if (isBlob) {
      if (!sidecar) reject('missing sidecar in blob transaction');
      const proofs = pre?.proofs;
      if (proofs === undefined) validateSidecar(tx.blobVersionedHashes ?? [], sidecar);
      else {
        checkSidecarShape(tx.blobVersionedHashes ?? [], sidecar);
        if ('error' in proofs) reject(`invalid blob proof: ${proofs.error}`);
        proofVerdict(proofs.ok);
      }
    }
    const acct = this.#accounts.get(senderHex);
    if (acct && acct.size > 0 && acct.isBlob() !== isBlob) reject(PoolErrors.alreadyReserved);

    const view = this.#chain.view();
    let state: { nonce: bigint; balance: bigint };
    try {
      state = view.account(sender);
    } finally {
      view.release();
    }
    const existing = acct?.pending.get(tx.nonce) ?? acct?.queued.get(tx.nonce);
    let spent = 0n;
    if (acct) for (const t of [...acct.pending.values(), ...acct.queued.values()]) spent += t.cost;
    validateWithState(tx, {
      nonce: state.nonce,
      balance: state.balance,
      spent,
      replacedCost: existing?.cost,
      used: acct?.size ?? 0,
      hasRoom: isBlob ? (acct?.size ?? 0) < MAX_BLOB_TXS_PER_ACCOUNT : true,
      firstGap: isBlob ? state.nonce + BigInt(acct?.pending.size ?? 0) : undefined,
    });

    const size = consensus.length;
    const entry: PoolTx = {
      tx,
      sender,
      senderHex,
      hashHex,
      size,
      slots: numSlots(size),
      cost: txCost(tx),
      local,
      sidecar,
      time: this.#now(),
    };
    if (existing) this.#checkReplacement(existing, entry);
    if (isBlob) this.#insertBlob(entry, existing);
    else this.#insert(entry, existing);
    if (this.#journal && !opts.fromJournal && !isBlob && (local || this.options.journalRemotes)) {
      try {
        this.#journal.append(consensus);
      } catch (err) {
        this.#logger.warn('Failed to journal local transaction', { err: (err as Error).message });
      }
    }
    return tx.hash;
  }

  /** geth's list.Add: both fee caps must rise, each by at least the price bump. */
  #checkReplacement(old: PoolTx, next: PoolTx): void {
    const bump = old.tx.type === 3 ? this.options.blobPriceBump : this.options.priceBump;
    const raised = (a: bigint, b: bigint) => b > a && b >= (a * (100n + bump)) / 100n;
    let ok = raised(feeCapOf(old.tx), feeCapOf(next.tx)) && raised(tipCapOf(old.tx), tipCapOf(next.tx));
    if (old.tx.type === 3) ok &&= raised(old.tx.maxFeePerBlobGas ?? 0n, next.tx.maxFeePerBlobGas ?? 0n);
    if (!ok) reject(PoolErrors.replaceUnderpriced);
  }

  #account(key: string): Account {
    let a = this.#accounts.get(key);
    if (!a) {
      a = new Account();
      a.beat = this.#now();
      this.#accounts.set(key, a);
    }
    return a;
  }

  #insert(entry: PoolTx, existing: PoolTx | undefined): void {
    const capacity = this.options.globalSlots + this.options.globalQueue;
    const overflow = this.#slots - (existing?.slots ?? 0) + entry.slots - capacity;
    if (overflow > 0) for (const v of this.#makeRoom(entry, overflow, capacity)) this.#remove(v, true);
    const wasPending = existing !== undefined && this.#pendingHashes.has(existing.hashHex);
    if (existing) this.#remove(existing, false);
    const acct = this.#account(entry.senderHex);
    if (wasPending) {
      // A replaced pending transaction's successor stays pending.
      this.#put(acct.pending, entry);
      acct.beat = this.#now();
      this.#emit([entry]);
      return;
    }
    this.#put(acct.queued, entry);
    this.#promote([entry.senderHex]);
  }

  #insertBlob(entry: PoolTx, existing: PoolTx | undefined): void {
    if (existing) this.#remove(existing, false);
    const acct = this.#account(entry.senderHex);
    this.#put(acct.pending, entry);
    this.#blobs.put(entry.tx.hash, joinBlobTx(entry.tx.raw, entry.sidecar as BlobSidecar));
    acct.beat = this.#now();
    this.#emit([entry]);
    // --blobpool.datacap: drop the cheapest accounts' last transactions until the store fits again.
    while (this.#blobs.size > this.options.blobDataCap) {
      const victim = this.#cheapestBlobTail();
      if (!victim) break;
      this.#remove(victim, false);
      if (victim === entry) reject(PoolErrors.underpriced);
    }
  }

  #cheapestBlobTail(): PoolTx | undefined {
    let worst: PoolTx | undefined;
    const baseFee = this.#head.header.baseFeePerGas;
    for (const a of this.#accounts.values()) {
      if (!a.isBlob() || a.pending.size === 0) continue;
      const last = byNonce(a.pending).at(-1) as PoolTx;
      if (!worst || effectiveTip(last.tx, baseFee) < effectiveTip(worst.tx, baseFee)) worst = last;
    }
    return worst;
  }

  #put(m: Map<bigint, PoolTx>, t: PoolTx): void {
    m.set(t.tx.nonce, t);
    this.#all.set(t.hashHex, t);
    if (t.tx.type !== 3) this.#slots += t.slots;
    if (m === this.#accounts.get(t.senderHex)?.pending) this.#pendingHashes.add(t.hashHex);
  }

  /** Removes a transaction; `demote` moves the account's later pending transactions back to the queue. */
  #remove(t: PoolTx, demote: boolean): void {
    const acct = this.#accounts.get(t.senderHex);
    if (!this.#all.delete(t.hashHex)) return;
    if (t.tx.type !== 3) this.#slots -= t.slots;
    else this.#blobs.delete(t.tx.hash);
    this.#pendingHashes.delete(t.hashHex);
    if (!acct) return;
    if (acct.pending.get(t.tx.nonce) === t) {
      acct.pending.delete(t.tx.nonce);
      if (demote) {
        for (const later of byNonce(acct.pending)) {
          if (later.tx.nonce > t.tx.nonce) {
            acct.pending.delete(later.tx.nonce);
            this.#pendingHashes.delete(later.hashHex);
            if (later.tx.type === 3) {
              // The blob pool has no queue: a gapped blob transaction is dropped.
              this.#all.delete(later.hashHex);
              this.#blobs.delete(later.tx.hash);
            } else {
              acct.queued.set(later.tx.nonce, later);
            }
          }
        }
      }
    } else if (acct.queued.get(t.tx.nonce) === t) {
      acct.queued.delete(t.tx.nonce);
    }
    if (acct.size === 0) this.#accounts.delete(t.senderHex);
  }

  /** The price order of geth's pricedList: effective tip at the head's base fee, then fee cap. */
  #cmpPrice(a: PoolTx, b: PoolTx): number {
    const baseFee = this.#head.header.baseFeePerGas;
    const ta = effectiveTip(a.tx, baseFee);
    const tb = effectiveTip(b.tx, baseFee);
    if (ta !== tb) return ta < tb ? -1 : 1;
    const fa = feeCapOf(a.tx);
    const fb = feeCapOf(b.tx);
    return fa < fb ? -1 : fa > fb ? 1 : 0;
  }

  #remotes(): PoolTx[] {
    return [...this.#all.values()].filter((t) => t.tx.type !== 3 && !this.#isLocalKey(t.senderHex));
  }

  /** Remotes that could make room for `t`: not its own sender's earlier nonces (evicting those would gap it). */
  #evictableFor(t: PoolTx): PoolTx[] {
    return this.#remotes().filter((r) => r.senderHex !== t.senderHex || r.tx.nonce > t.tx.nonce);
  }

  #underpriced(t: PoolTx): boolean {
    let cheapest: PoolTx | undefined;
    for (const r of this.#evictableFor(t)) if (!cheapest || this.#cmpPrice(r, cheapest) < 0) cheapest = r;
    return cheapest !== undefined && this.#cmpPrice(cheapest, t) >= 0;
  }

  /**
   * What a full pool drops to admit `entry` (geth's legacypool add): the cheapest remote transactions; a remote
   * cheaper than all of them is underpriced. Locals are never evicted for price, but a local flood must not lock
   * other accounts out: when the remotes cannot free enough, an executable transaction (or a local one) may also
   * take the room of other accounts' non-executable (queued) transactions, locals' included, the furthest nonces
   * first. What is still missing: a local is admitted anyway (geth forces locals in), and so is an executable
   * remote while the remotes together stay within the limits (the excess is the locals'); anything else is "txpool
   * is full". A gapped remote never pushes out a pending transaction (geth's ErrFutureReplacePending).
   */
  #makeRoom(entry: PoolTx, slots: number, capacity: number): PoolTx[] {
    if (!entry.local && this.#underpriced(entry)) reject(PoolErrors.underpriced);
    const victims: PoolTx[] = [];
    let freed = 0;
    const take = (candidates: PoolTx[]) => {
      for (const t of candidates) {
        if (freed >= slots) break;
        victims.push(t);
        freed += t.slots;
      }
    };
    take(this.#evictableFor(entry).sort((a, b) => this.#cmpPrice(a, b)));
    const executable = !this.#isGapped(entry);
    if (freed < slots && (entry.local || executable)) {
      const chosen = new Set(victims);
      take(
        [...this.#all.values()]
          .filter(
            (t) =>
              t.tx.type !== 3 &&
              t.senderHex !== entry.senderHex &&
              !this.#pendingHashes.has(t.hashHex) &&
              !chosen.has(t),
          )
          .sort((a, b) => (a.tx.nonce > b.tx.nonce ? -1 : a.tx.nonce < b.tx.nonce ? 1 : this.#cmpPrice(a, b))),
      );
    }
    if (freed < slots && !entry.local) {
      let remoteSlots = entry.slots;
      for (const t of this.#remotes()) remoteSlots += t.slots;
      for (const v of victims) if (!v.local) remoteSlots -= v.slots;
      if (!executable || remoteSlots > capacity) reject(PoolErrors.poolFull);
    }
    if (!entry.local && !executable && victims.some((v) => this.#pendingHashes.has(v.hashHex)))
      reject(PoolErrors.futureReplacePending);
    return victims;
  }

  /** geth's isGapped: the transaction cannot run until a nonce the account's pending and queued lack arrives. */
  #isGapped(t: PoolTx): boolean {
    const acct = this.#accounts.get(t.senderHex);
    const view = this.#chain.view();
    let next: bigint;
    try {
      next = view.account(t.sender).nonce;
    } finally {
      view.release();
    }
    while (acct?.pending.has(next)) next++;
    if (t.tx.nonce <= next) return false;
    for (let n = next; n < t.tx.nonce; n++) if (!acct?.queued.has(n)) return true;
    return false;
  }

  // ---- promotion, demotion and the global limits ----

  /** geth's promoteExecutables for these accounts, then the global limits. */
  #promote(keys: Iterable<string>): void {
    const view = this.#chain.view();
    const promoted: PoolTx[] = [];
    try {
      const gasLimit = this.#head.header.gasLimit;
      for (const key of keys) {
        const acct = this.#accounts.get(key);
        if (!acct) continue;
        const first = acct.queued.values().next().value ?? acct.pending.values().next().value;
        if (!first) continue;
        const state = view.account(first.sender);
        for (const t of byNonce(acct.queued)) {
          // Stale nonces, then what the sender can no longer pay for or no block can hold.
          if (t.tx.nonce < state.nonce || t.cost > state.balance || t.tx.gasLimit > gasLimit) this.#remove(t, false);
        }
        let next = state.nonce;
        while (acct.pending.has(next)) next++;
        for (const t of byNonce(acct.queued)) {
          if (t.tx.nonce !== next) break;
          acct.queued.delete(next);
          acct.pending.set(next, t);
          this.#pendingHashes.add(t.hashHex);
          promoted.push(t);
          next++;
        }
        if (promoted.length > 0) acct.beat = this.#now();
        if (!this.#isLocalKey(key) && acct.queued.size > this.options.accountQueue) {
          const extra = byNonce(acct.queued).slice(this.options.accountQueue);
          for (const t of extra) this.#remove(t, false);
        }
        if (acct.size === 0) this.#accounts.delete(key);
      }
    } finally {
      view.release();
    }
    this.#truncatePending();
    this.#truncateQueue();
    this.#emit(promoted.filter((t) => this.#all.has(t.hashHex)));
  }

  /** geth's truncatePending: accounts over --txpool.accountslots give back slots until the pool fits. */
  #truncatePending(): void {
    const { globalSlots, accountSlots } = this.options;
    let pending = 0;
    for (const a of this.#accounts.values()) if (!a.isBlob()) pending += a.pending.size;
    if (pending <= globalSlots) return;
    const spammers = [...this.#accounts.entries()]
      .filter(([k, a]) => !a.isBlob() && !this.#isLocalKey(k) && a.pending.size > accountSlots)
      .sort((x, y) => y[1].pending.size - x[1].pending.size)
      .map(([, a]) => a);
    const dropLast = (a: Account) => {
      const last = byNonce(a.pending).at(-1);
      if (last) {
        this.#remove(last, false);
        pending--;
      }
    };
    const offenders: Account[] = [];
    while (pending > globalSlots && spammers.length > 0) {
      const offender = spammers.shift() as Account;
      offenders.push(offender);
      if (offenders.length > 1) {
        const threshold = offender.pending.size;
        while (pending > globalSlots && (offenders.at(-2) as Account).pending.size > threshold) {
          for (const o of offenders.slice(0, -1)) dropLast(o);
        }
      }
    }
    if (pending > globalSlots && offenders.length > 0) {
      while (pending > globalSlots && (offenders.at(-1) as Account).pending.size > accountSlots) {
        for (const o of offenders) dropLast(o);
      }
    }
  }

  /** geth's truncateQueue: over --txpool.globalqueue, the longest-idle remote accounts lose their queue first. */
  #truncateQueue(): void {
    let queued = 0;
    for (const a of this.#accounts.values()) queued += a.queued.size;
    let drop = queued - this.options.globalQueue;
    if (drop <= 0) return;
    const idle = [...this.#accounts.entries()]
      .filter(([k, a]) => a.queued.size > 0 && !this.#isLocalKey(k))
      .sort((x, y) => x[1].beat - y[1].beat);
    for (const [, a] of idle) {
      if (drop <= 0) break;
      const txs = byNonce(a.queued);
      for (let i = txs.length - 1; i >= 0 && drop > 0; i--) {
        this.#remove(txs[i] as PoolTx, false);
        drop--;
      }
    }
  }

  /** --txpool.lifetime: queued transactions of remote accounts idle for longer are dropped. */
  #evictStale(): void {
    const now = this.#now();
    for (const [key, a] of [...this.#accounts]) {
      if (this.#isLocalKey(key) || a.queued.size === 0) continue;
      if (now - a.beat > this.options.lifetimeMs) for (const t of [...a.queued.values()]) this.#remove(t, false);
    }
  }

  /** Runs the lifetime eviction now (tests; the timer runs it every --txpool.* eviction interval). */
  evictStale(): void {
    this.#evictStale();
  }

  /** Rewrites the journal from the pool's locals (and remotes with --txpool.journalremotes). */
  #rejournal(): void {
    if (!this.#journal) return;
    const keep: Uint8Array[] = [];
    for (const [key, a] of this.#accounts) {
      if (a.isBlob() || !(this.#isLocalKey(key) || this.options.journalRemotes)) continue;
      for (const t of [...byNonce(a.pending), ...byNonce(a.queued)]) keep.push(t.tx.raw);
    }
    try {
      this.#journal.rotate(keep);
    } catch (err) {
      this.#logger.warn('Failed to rotate the transaction journal', { err: (err as Error).message });
    }
  }

  rejournal(): void {
    this.#rejournal();
  }

  // ---- new heads ----

  async #reset(): Promise<void> {
    const view = this.#chain.view();
    const reinject: Uint8Array[] = [];
    let newHead: PoolHead;
    try {
      newHead = view.head();
      const old = this.#head;
      if (Buffer.compare(newHead.hash, old.hash) === 0) return;
      if (Buffer.compare(newHead.header.parentHash, old.hash) !== 0)
        reinject.push(...this.#dropped(view, old, newHead));
      this.#head = newHead;
      // Demote: included or stale nonces go, unaffordable ones go with their successors back to the queue, and an
      // account whose pending run no longer starts at its nonce is queued again.
      for (const [, acct] of [...this.#accounts]) {
        const first = acct.pending.values().next().value ?? acct.queued.values().next().value;
        if (!first) continue;
        const state = view.account(first.sender);
        for (const t of byNonce(acct.pending)) if (t.tx.nonce < state.nonce) this.#remove(t, false);
        for (const t of byNonce(acct.queued)) if (t.tx.nonce < state.nonce) this.#remove(t, false);
        for (const t of byNonce(acct.pending)) {
          if (t.cost > state.balance || t.tx.gasLimit > newHead.header.gasLimit) {
            if (this.#all.has(t.hashHex)) this.#remove(t, true);
          }
        }
        const firstPending = byNonce(acct.pending)[0];
        if (firstPending && firstPending.tx.nonce > state.nonce) {
          for (const t of byNonce(acct.pending)) {
            acct.pending.delete(t.tx.nonce);
            this.#pendingHashes.delete(t.hashHex);
            if (t.tx.type === 3) this.#remove(t, false);
            else acct.queued.set(t.tx.nonce, t);
          }
        }
        if (acct.size === 0) this.#accounts.delete(first.senderHex);
      }
    } finally {
      view.release();
    }
    this.#promote([...this.#accounts.keys()]);
    for (const raw of reinject) this.#addNow(raw, {});
  }

  /** Transactions of the old branch's blocks that the new branch does not include (a simple reorg walk). */
  #dropped(view: PoolChainView, oldHead: PoolHead, newHead: PoolHead): Uint8Array[] {
    let o: Header | undefined = oldHead.header;
    let oHash = oldHead.hash;
    let n: Header | undefined = newHead.header;
    let nHash = newHead.hash;
    const discarded: Uint8Array[] = [];
    const included = new Set<string>();
    const collect = (hash: Uint8Array, into: (raw: Uint8Array) => void) => {
      const b = view.block(hash);
      if (!b) return undefined;
      for (const raw of b.transactions) into(raw);
      return b.header;
    };
    for (let depth = 0n; o && n && depth < MAX_REORG_DEPTH * 2n; depth++) {
      if (Buffer.compare(oHash, nHash) === 0) break;
      if (o.number >= n.number) {
        collect(oHash, (r) => discarded.push(r));
        oHash = o.parentHash;
        o = view.block(oHash)?.header;
      } else {
        collect(nHash, (r) => included.add(hex(keccak256(r))));
        nHash = n.parentHash;
        n = view.block(nHash)?.header;
      }
    }
    return discarded.filter((r) => r[0] !== 0x7e && r[0] !== 3 && !included.has(hex(keccak256(r))));
  }

  #emit(txs: PoolTx[]): void {
    if (txs.length === 0 || this.#listeners.size === 0) return;
    for (const t of txs) {
      for (const l of this.#listeners) {
        try {
          l(t.tx.hash);
        } catch (err) {
          this.#logger.warn('pending transaction listener failed', { err: (err as Error).message });
        }
      }
    }
  }

  /** The blob base fee of the block after the head (for a builder that has none at hand). */
  nextBlobBaseFee(): bigint | undefined {
    const h = this.#head.header;
    const params = blobParamsAt(this.#chain.config, h.timestamp);
    if (!params || h.excessBlobGas === undefined) return undefined;
    return calcBlobBaseFee(h.excessBlobGas, params);
  }
}

/** A binary max-heap by `better`. */
class Heap<T> {
  readonly #items: T[] = [];
  constructor(private readonly better: (a: T, b: T) => boolean) {}
  get size(): number {
    return this.#items.length;
  }
  peek(): T | undefined {
    return this.#items[0];
  }
  push(x: T): void {
    const a = this.#items;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(a[i] as T, a[p] as T)) break;
      [a[i], a[p]] = [a[p] as T, a[i] as T];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      this.fix();
    }
    return top;
  }
  /** Restores the order after the top changed. */
  fix(): void {
    const a = this.#items;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.better(a[l] as T, a[m] as T)) m = l;
      if (r < a.length && this.better(a[r] as T, a[m] as T)) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m] as T, a[i] as T];
      i = m;
    }
  }
}

/** Whether the sidecar's shape checks pass (its proofs are worth checking ahead); admission reports any fault. */
function shapeOk(tx: DecodedTx, sidecar: BlobSidecar): boolean {
  try {
    checkSidecarShape(tx.blobVersionedHashes ?? [], sidecar);
    return true;
  } catch {
    return false;
  }
}

/** A sender recovered on this thread, as the admission pools answer it. */
function recoverInline(consensus: Uint8Array): SenderResult {
  try {
    return { ok: true, address: recoverSender(consensus) };
  } catch (err) {
    return { ok: false, code: 'TX_INVALID_SIGNATURE', message: (err as Error).message };
  }
}
