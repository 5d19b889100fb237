// The layer-1 JSON-RPC client (op-node's L1Client role): block references, headers, transactions and receipts over
// HTTP or WebSocket, with batching, a concurrency cap, a rate limit, LRU caches keyed by block hash, and — unless
// --l1.trustrpc — verification of everything against the block hash (verify.ts).
//
// Behind a slow or flaky L1 (latency, 429/5xx, resets): each request is retried on its own with jittered
// exponential back-off, every attempt counted in the rpc_client_* metrics, and the operator told by a WARN at most
// every 10 s with the counts. Latency is hidden by reading ahead of derivation: a block asked for by number brings
// its receipts and transactions, and the next --l1.max-concurrency blocks up to the known head, into the caches
// (concurrent requests for one block's data share one fetch).

import { backoffDelay } from '../../common/backoff.js';
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { type BatchRequest, RpcClient } from '../../common/rpc/client.js';
import { decodeReceipt, type Receipt } from '../../primitives/receipt/receipt.js';
import { decodeTransaction } from '../../primitives/tx/decode.js';
import { RpcError, RpcErrorCode, RpcTransportError, RpcTransportErrorCode } from '../../protocol/jsonrpc/errors.js';
import { LruCache } from './cache.js';
import { FaultReport } from './faultReport.js';
import type { BlockLabel, Hex, L1BlockInfo, L1BlockRef, L1CallOptions, L1Source, L1Transaction } from './interface.js';
import { RequestLimiter } from './limiter.js';
import { blockReceiptsParams, RECEIPTS_METHODS, type ReceiptsMethod, type RpcKind } from './receiptsMethod.js';
import { asJson, dataField, hashField, type Json, receiptFromJson } from './rpcJson.js';
import { checkBlock, checkHeader, checkReceipts, toHex } from './verify.js';

export interface L1ClientOptions {
  /** --l1: http(s):// or ws(s)://. */
  url: string;
  /** --l1.rpckind */
  rpcKind: RpcKind;
  /** --l1.trustrpc: skip verification. */
  trustRpc: boolean;
  /** --l1.rpc-max-batch-size */
  maxBatchSize: number;
  /** --l1.max-concurrency */
  maxConcurrency: number;
  /** --l1.rpc-rate-limit, requests per second (0: none). */
  rateLimit: number;
  /** --l1.cache-size, entries per cache (headers, transactions, receipts); 0: 3/2 of the sequencing window. */
  cacheSize: number;
  /** The rollup's sequencing window in L1 blocks (for cacheSize 0). */
  seqWindowSize?: number | undefined;
  /** Per request (a batch is one request). */
  timeoutMs?: number | undefined;
  /** Attempts per request on 429, 5xx, timeouts and broken connections. */
  maxAttempts?: number | undefined;
  retryBaseDelayMs?: number | undefined;
  /** Longest back-off between attempts. */
  retryMaxDelayMs?: number | undefined;
  headers?: Readonly<Record<string, string>> | undefined;
  /** Read ahead of derivation (blocks by number, their receipts and transactions); default on. */
  prefetch?: boolean | undefined;
}

export const l1ClientDefaults = {
  rpcKind: 'standard' as RpcKind,
  trustRpc: false,
  maxBatchSize: 20,
  maxConcurrency: 10,
  rateLimit: 0,
  cacheSize: 900,
  /** op-node's default sequencing window when none is given. */
  seqWindowSize: 3600,
  timeoutMs: 10_000,
  maxAttempts: 10,
  retryBaseDelayMs: 100,
  retryMaxDelayMs: 5000,
} satisfies Partial<L1ClientOptions>;

/** A block read ahead by number is used within this long, or fetched again (the chain may have moved). */
const PREFETCH_TTL_MS = 30_000;

/** Failures worth another attempt: transport failures (timeouts, resets, 429, 5xx) and cut or garbled answers. */
function isTransient(err: unknown): boolean {
  return (
    err instanceof RpcTransportError && (err.severity === 'temporary' || err.code === RpcTransportErrorCode.badResponse)
  );
}

/** Counters a metrics module can back; every field optional. */
export interface L1ClientMetrics {
  rpcRequests?(method: string, calls: number): void;
  cacheHit?(cache: 'headers' | 'transactions' | 'receipts'): void;
  verificationFailure?(field: string): void;
  /** Times one request (op-node's rpc_client_* by method; batches as `<batch>`): call the result when it ends. */
  recordRpcClientRequest?(method: string): (err?: unknown) => void;
}

export interface L1ClientDeps {
  logger: Logger;
  metrics?: L1ClientMetrics | undefined;
  signal?: AbortSignal | undefined;
}

/** Entries per cache: the flag's value, or 3/2 of the sequencing window for 0. */
export function effectiveCacheSize(cacheSize: number, seqWindowSize?: number): number {
  if (cacheSize > 0) return cacheSize;
  return Math.floor(((seqWindowSize ?? l1ClientDefaults.seqWindowSize) * 3) / 2);
}

const qty = (n: number) => `0x${n.toString(16)}`;

function notFound(what: string): TernError {
  return new TernError('L1_NOT_FOUND', `L1 ${what} not found`, { severity: 'temporary' });
}

function rpcFailure(err: unknown, what: string): TernError {
  if (err instanceof TernError && err.severity !== undefined) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new TernError('L1_RPC', `L1 RPC ${what} failed: ${message}`, { severity: 'temporary', cause: err });
}

const isMethodNotFound = (err: unknown) =>
  err instanceof RpcError &&
  (err.code === RpcErrorCode.methodNotFound ||
    /method .*(not found|does not exist|not (available|supported))/i.test(err.message));

export class L1Client implements L1Source {
  readonly #opts: L1ClientOptions;
  readonly #logger: Logger;
  readonly #metrics: L1ClientMetrics | undefined;
  readonly #rpc: RpcClient;
  readonly #limiter: RequestLimiter;
  readonly #headers: LruCache<L1BlockInfo>;
  readonly #txs: LruCache<L1Transaction[]>;
  readonly #receipts: LruCache<Receipt[]>;
  /** Receipts methods still believed available, best first. */
  #methods: ReceiptsMethod[];
  /** Fetches under way by key, shared by the callers that want the same data. */
  readonly #inflight = new Map<string, Promise<unknown>>();
  /** Blocks read ahead by number, with when. */
  readonly #ahead = new Map<number, { at: number; info: Promise<L1BlockInfo> }>();
  /** The highest `latest` block seen: reading ahead never goes past it. */
  #latestSeen = -1;
  readonly #faults: FaultReport;

  constructor(opts: L1ClientOptions, deps: L1ClientDeps) {
    this.#opts = opts;
    this.#logger = deps.logger.child('l1');
    this.#faults = new FaultReport(this.#logger, 'L1 RPC requests failing, retrying', 'lastMethod');
    this.#metrics = deps.metrics;
    this.#rpc = new RpcClient(
      {
        url: opts.url,
        timeoutMs: opts.timeoutMs ?? l1ClientDefaults.timeoutMs,
        headers: opts.headers,
      },
      { logger: this.#logger, signal: deps.signal },
    );
    this.#limiter = new RequestLimiter({
      maxConcurrency: opts.maxConcurrency,
      rateLimit: opts.rateLimit,
      burst: opts.maxBatchSize,
    });
    const size = effectiveCacheSize(opts.cacheSize, opts.seqWindowSize);
    this.#headers = new LruCache(size);
    this.#txs = new LruCache(size);
    this.#receipts = new LruCache(size);
    this.#methods = [...RECEIPTS_METHODS[opts.rpcKind]];
  }

  get transport(): 'http' | 'ws' {
    return this.#rpc.transport;
  }

  /** The underlying client (head subscriptions use it). */
  get rpc(): RpcClient {
    return this.#rpc;
  }

  close(): Promise<void> {
    return this.#rpc.close();
  }

  async blockRefByLabel(label: BlockLabel, opts: L1CallOptions = {}): Promise<L1BlockRef> {
    const info = await this.#headerBy('eth_getBlockByNumber', label, label, opts);
    if (label === 'latest') this.#latestSeen = Math.max(this.#latestSeen, info.number);
    return refOf(info);
  }

  async blockRefByNumber(num: number, opts: L1CallOptions = {}): Promise<L1BlockRef> {
    let info: L1BlockInfo | undefined;
    const ahead = this.#ahead.get(num);
    if (ahead !== undefined) {
      // Used once: after a reorg derivation asks again and gets a fresh answer.
      this.#ahead.delete(num);
      if (performance.now() - ahead.at < PREFETCH_TTL_MS) info = await ahead.info.catch(() => undefined);
    }
    info ??= await this.#headerByNumber(num, opts);
    this.#readAhead(num, info.hash);
    return refOf(info);
  }

  async #headerByNumber(num: number, opts: L1CallOptions): Promise<L1BlockInfo> {
    const info = await this.#headerBy('eth_getBlockByNumber', qty(num), `block ${num}`, opts);
    if (info.number !== num) {
      throw new TernError('L1_BLOCK_INVALID', `asked for L1 block ${num}, RPC answered block ${info.number}`, {
        severity: 'temporary',
      });
    }
    return info;
  }

  /**
   * Derivation reads blocks by number in order, then each one's receipts and transactions: fetch those of `num`
   * now and the next blocks (up to --l1.max-concurrency, never past the known head) ahead, into the caches.
   */
  #readAhead(num: number, hash: Hex): void {
    if (this.#opts.prefetch === false) return;
    // Transactions first: with them cached, the receipts need no header request.
    const warm = (h: Hex) =>
      void this.infoAndTxsByHash(h)
        .then(() => this.fetchReceipts(h))
        .catch(() => undefined);
    warm(hash);
    const depth = this.#opts.maxConcurrency;
    for (let n = num + 1; n <= num + depth && n <= this.#latestSeen; n++) {
      if (this.#ahead.has(n)) continue;
      // One request brings the header and the transactions of a block ahead.
      const info = this.#blockByNumber(n);
      info.then((i) => warm(i.hash)).catch(() => undefined);
      this.#ahead.set(n, { at: performance.now(), info });
    }
    // Entries derivation skipped (a reset went elsewhere) are dropped.
    for (const n of this.#ahead.keys()) if (n < num || n > num + 4 * depth) this.#ahead.delete(n);
  }

  /** A block by number with its transactions, verified, into the header and transaction caches. */
  async #blockByNumber(num: number): Promise<L1BlockInfo> {
    const json = await this.#call('eth_getBlockByNumber', [qty(num), true], {});
    if (json === null || json === undefined) throw notFound(`block ${num}`);
    const block = this.#verified(() => checkBlock(json, !this.#opts.trustRpc));
    const info = infoOf(block.hash, block.header);
    if (info.number !== num) {
      throw new TernError('L1_BLOCK_INVALID', `asked for L1 block ${num}, RPC answered block ${info.number}`, {
        severity: 'temporary',
      });
    }
    this.#headers.set(block.hash, info);
    this.#txs.set(block.hash, block.transactions.map(decodeTransaction));
    return info;
  }

  /** One fetch per key at a time: a caller that wants what is already being fetched waits for it. */
  #shared<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const running = this.#inflight.get(key);
    if (running !== undefined) return running as Promise<T>;
    const p = fn().finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, p);
    return p;
  }

  async blockRefByHash(hash: Hex, opts: L1CallOptions = {}): Promise<L1BlockRef> {
    return refOf(await this.infoByHash(hash, opts));
  }

  async infoByHash(hash: Hex, opts: L1CallOptions = {}): Promise<L1BlockInfo> {
    const key = hash.toLowerCase();
    const cached = this.#headers.get(key);
    if (cached) {
      this.#metrics?.cacheHit?.('headers');
      return cached;
    }
    return this.#headerBy('eth_getBlockByHash', key, `block ${key}`, opts, key);
  }

  async infoAndTxsByHash(hash: Hex, opts: L1CallOptions = {}): Promise<{ info: L1BlockInfo; txs: L1Transaction[] }> {
    const key = hash.toLowerCase();
    const txs = this.#txs.get(key);
    const info = this.#headers.get(key);
    if (txs && info) {
      this.#metrics?.cacheHit?.('transactions');
      return { info, txs };
    }
    return this.#shared(`txs:${key}`, () => this.#fetchTxs(key as Hex, opts));
  }

  async #fetchTxs(key: Hex, opts: L1CallOptions): Promise<{ info: L1BlockInfo; txs: L1Transaction[] }> {
    const json = await this.#call('eth_getBlockByHash', [key, true], opts);
    if (json === null || json === undefined) throw notFound(`block ${key}`);
    const block = this.#verified(() => checkBlock(json, !this.#opts.trustRpc));
    if (block.hash !== key) throw mismatch(key, block.hash);
    const result = { info: infoOf(block.hash, block.header), txs: block.transactions.map(decodeTransaction) };
    this.#headers.set(key, result.info);
    this.#txs.set(key, result.txs);
    return result;
  }

  async fetchReceipts(hash: Hex, opts: L1CallOptions = {}): Promise<{ info: L1BlockInfo; receipts: Receipt[] }> {
    const key = hash.toLowerCase();
    const cachedReceipts = this.#receipts.get(key);
    const cachedInfo = this.#headers.get(key);
    if (cachedReceipts && cachedInfo) {
      this.#metrics?.cacheHit?.('receipts');
      return { info: cachedInfo, receipts: cachedReceipts };
    }
    return this.#shared(`receipts:${key}`, () => this.#fetchBlockReceipts(key as Hex, opts));
  }

  async #fetchBlockReceipts(key: Hex, opts: L1CallOptions): Promise<{ info: L1BlockInfo; receipts: Receipt[] }> {
    // The header with its transaction hashes: the receipts count and, for per-transaction fetching, what to ask.
    // A block whose transactions are cached (verified against its header) needs no request for them.
    let info: L1BlockInfo;
    let hashes: string[];
    const cachedTxs = this.#txs.get(key);
    const cachedHeader = this.#headers.get(key);
    if (cachedTxs && cachedHeader) {
      info = cachedHeader;
      hashes = cachedTxs.map((t) => toHex(t.hash));
    } else {
      const json = await this.#call('eth_getBlockByHash', [key, false], opts);
      if (json === null || json === undefined) throw notFound(`block ${key}`);
      const { hash: got, header } = this.#verified(() => checkHeader(json, !this.#opts.trustRpc));
      if (got !== key) throw mismatch(key, got);
      info = infoOf(got, header);
      const txHashes = (asJson(json, 'block').transactions ?? []) as unknown[];
      if (!Array.isArray(txHashes)) throw new TernError('L1_BAD_RESPONSE', `block ${key} has no transactions list`);
      hashes = txHashes.map((t, i) =>
        typeof t === 'string' ? t.toLowerCase() : hashField(asJson(t, `tx ${i}`), 'hash'),
      );
    }
    const header = info.header;
    const receipts = await this.#fetchReceipts(key, hashes, opts);
    if (receipts.length !== hashes.length) {
      throw new TernError(
        'L1_BLOCK_INVALID',
        `L1 block ${info.number} (${key}): ${receipts.length} receipts for ${hashes.length} transactions`,
        { severity: 'temporary' },
      );
    }
    if (!this.#opts.trustRpc) this.#verified(() => checkReceipts(key, header, receipts));
    this.#headers.set(key, info);
    this.#receipts.set(key, receipts);
    return { info, receipts };
  }

  async #fetchReceipts(blockHash: Hex, txHashes: readonly string[], opts: L1CallOptions): Promise<Receipt[]> {
    if (txHashes.length === 0) return [];
    for (;;) {
      const method = this.#methods[0] as ReceiptsMethod;
      try {
        if (method === 'eth_getTransactionReceipt') return await this.#receiptsPerTx(blockHash, txHashes, opts);
        const result = await this.#call(method, blockReceiptsParams(method, blockHash), opts);
        return this.#parseBlockReceipts(method, blockHash, txHashes, result);
      } catch (err) {
        if (this.#methods.length > 1 && isMethodNotFound(err)) {
          this.#logger.warn('L1 RPC lacks a receipts method; falling back', { method, next: this.#methods[1] });
          this.#methods.shift();
          continue;
        }
        throw err;
      }
    }
  }

  #parseBlockReceipts(method: ReceiptsMethod, blockHash: Hex, txHashes: readonly string[], result: unknown): Receipt[] {
    const list =
      method === 'alchemy_getTransactionReceipts' && !Array.isArray(result) ? (result as Json)?.receipts : result;
    if (list === null || list === undefined) throw notFound(`receipts of block ${blockHash}`);
    if (!Array.isArray(list))
      throw new TernError('L1_BAD_RESPONSE', `${method} did not answer a list`, { severity: 'temporary' });
    if (method === 'debug_getRawReceipts') {
      return list.map((r: unknown) => decodeReceipt(dataField({ r } as Json, 'r')));
    }
    return list.map((r: unknown, i) => this.#receiptJson(r, blockHash, txHashes[i], i));
  }

  async #receiptsPerTx(blockHash: Hex, txHashes: readonly string[], opts: L1CallOptions): Promise<Receipt[]> {
    const reqs: BatchRequest[] = txHashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] }));
    const results = await this.#batch(reqs, opts);
    return results.map((r, i) => {
      if (r === null || r === undefined) throw notFound(`receipt of transaction ${txHashes[i]} in block ${blockHash}`);
      return this.#receiptJson(r, blockHash, txHashes[i], i);
    });
  }

  /** A receipt answer, checked to belong to this block and transaction (cheap, and done even when trusted). */
  #receiptJson(r: unknown, blockHash: Hex, txHash: string | undefined, i: number): Receipt {
    const o = asJson(r, `receipt ${i}`);
    if (o.blockHash !== undefined && String(o.blockHash).toLowerCase() !== blockHash) {
      throw new TernError('L1_BLOCK_INVALID', `receipt ${i} is for block ${String(o.blockHash)}, not ${blockHash}`, {
        severity: 'temporary',
      });
    }
    if (txHash !== undefined && o.transactionHash !== undefined && String(o.transactionHash).toLowerCase() !== txHash) {
      throw new TernError(
        'L1_BLOCK_INVALID',
        `receipt ${i} of block ${blockHash} is for transaction ${String(o.transactionHash)}, not ${txHash}`,
        { severity: 'temporary' },
      );
    }
    return receiptFromJson(o);
  }

  async #headerBy(
    method: string,
    id: string,
    what: string,
    opts: L1CallOptions,
    wantHash?: string,
  ): Promise<L1BlockInfo> {
    const json = await this.#call(method, [id, false], opts);
    if (json === null || json === undefined) throw notFound(what);
    const { hash, header } = this.#verified(() => checkHeader(json, !this.#opts.trustRpc));
    if (wantHash !== undefined && hash !== wantHash) throw mismatch(wantHash, hash);
    const info = infoOf(hash, header);
    this.#headers.set(hash, info);
    return info;
  }

  /** Runs a verification, counting and logging a failure. */
  #verified<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof TernError && err.code === 'L1_BLOCK_INVALID') {
        this.#metrics?.verificationFailure?.(err.message.match(/verify (\w+)/)?.[1] ?? 'other');
        this.#logger.warn('L1 RPC answer failed verification', { err: err.message });
      }
      throw err;
    }
  }

  /** Times the request itself (not the wait for the limiter), as op-node's instrumented client does. */
  #timed<T>(method: string, fn: () => Promise<T>): Promise<T> {
    const done = this.#metrics?.recordRpcClientRequest?.(method);
    if (done === undefined) return fn();
    return fn().then(
      (v) => {
        done();
        return v;
      },
      (err: unknown) => {
        done(err);
        throw err;
      },
    );
  }

  /**
   * Runs one request with its own retries: transient failures are tried again after a jittered exponential
   * back-off, each attempt holding a limiter slot only while it runs; every failure is counted and reported.
   */
  async #attempts<T>(method: string, cost: number, fn: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const maxAttempts = this.#opts.maxAttempts ?? l1ClientDefaults.maxAttempts;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#limiter.run(cost, () => this.#timed(method, fn), signal);
      } catch (err) {
        const retry = isTransient(err) && attempt < maxAttempts && signal?.aborted !== true;
        this.#fault(method, err, retry);
        if (!retry) throw err;
        const delay = backoffDelay(attempt, {
          baseMs: this.#opts.retryBaseDelayMs ?? l1ClientDefaults.retryBaseDelayMs,
          maxMs: this.#opts.retryMaxDelayMs ?? l1ClientDefaults.retryMaxDelayMs,
        });
        await new Promise<void>((r) => {
          const t = setTimeout(r, delay);
          signal?.addEventListener(
            'abort',
            () => {
              clearTimeout(t);
              r();
            },
            { once: true },
          );
        });
      }
    }
  }

  /** Counts a transient failed attempt (a WARN at once for the first, then at most every 10 s with counts). */
  #fault(method: string, err: unknown, retried: boolean): void {
    if (isTransient(err)) this.#faults.fault(method, err, retried);
  }

  async #call(method: string, params: unknown[], opts: L1CallOptions): Promise<unknown> {
    this.#metrics?.rpcRequests?.(method, 1);
    try {
      return await this.#attempts(
        method,
        1,
        () => this.#rpc.call(method, params, { signal: opts.signal }),
        opts.signal,
      );
    } catch (err) {
      if (isMethodNotFound(err)) throw err;
      throw rpcFailure(err, method);
    }
  }

  /** Calls in batches of maxBatchSize, sent concurrently within the limiter; any failed call fails the whole. */
  async #batch(reqs: readonly BatchRequest[], opts: L1CallOptions): Promise<unknown[]> {
    const size = this.#opts.maxBatchSize;
    const chunks: BatchRequest[][] = [];
    for (let i = 0; i < reqs.length; i += size) chunks.push(reqs.slice(i, i + size));
    const answers = await Promise.all(
      chunks.map(async (chunk) => {
        this.#metrics?.rpcRequests?.('batch', chunk.length);
        try {
          const res = await this.#attempts(
            '<batch>',
            chunk.length,
            () => this.#rpc.batch(chunk, { signal: opts.signal }),
            opts.signal,
          );
          return res.map((r) => {
            if (!r.ok) throw r.error;
            return r.value;
          });
        } catch (err) {
          throw rpcFailure(err, `batch of ${chunk.length} ${chunk[0]?.method}`);
        }
      }),
    );
    return answers.flat();
  }
}

function mismatch(want: string, got: string): TernError {
  return new TernError('L1_BLOCK_INVALID', `asked for L1 block ${want}, RPC answered block ${got}`, {
    severity: 'temporary',
  });
}

export function infoOf(hash: Hex, header: L1BlockInfo['header']): L1BlockInfo {
  return {
    hash,
    number: Number(header.number),
    parentHash: toHex(header.parentHash),
    timestamp: Number(header.timestamp),
    header,
  };
}

export function refOf(info: L1BlockInfo): L1BlockRef {
  return { hash: info.hash, number: info.number, parentHash: info.parentHash, timestamp: info.timestamp };
}
