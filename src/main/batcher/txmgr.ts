// Sends one batcher transaction and sees it through (op-service txmgr's behaviour): suggested fees from L1,
// publish, poll for the receipt, wait for --num-confirmations, and when nothing is included within
// --resubmission-timeout, replace it at the same nonce with fees bumped as the mempool's replacement rules require
// (10 %, or 100 % for blob transactions), never past --fee-limit-multiplier times the first suggestion. A receipt
// that disappears (an L1 reorg) sends the transaction out again.
import { TernError } from '../common/errors.js';
import type { Logger } from '../common/logger/index.js';
import { type BlobSidecar, type SignedTx, type Signer, signTx, type TxFees } from './l1Tx.js';
import type { TxManagerOptions } from './options.js';

/** The L1 calls the transaction manager makes (RpcClient has this shape). */
export interface L1Rpc {
  call<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
}

export interface TxCandidate {
  readonly to: string;
  readonly data: Uint8Array;
  readonly gasLimit: bigint;
  readonly sidecar?: BlobSidecar;
}

export interface TxReceipt {
  readonly txHash: string;
  readonly blockNumber: number;
  readonly blockHash: string;
  /** false: the transaction reverted. */
  readonly success: boolean;
}

export interface TxManagerDeps {
  readonly l1: L1Rpc;
  readonly signer: Signer;
  readonly logger: Logger;
  readonly signal?: AbortSignal;
}

const PRICE_BUMP = 10n;
const BLOB_PRICE_BUMP = 100n;
/** What L1 answers when eth_maxPriorityFeePerGas is missing: 1 gwei, geth's usual suggestion floor. */
const FALLBACK_TIP = 1_000_000_000n;

const q = (v: unknown): bigint => (typeof v === 'string' || typeof v === 'number' ? BigInt(v) : 0n);

function bump(old: bigint, percent: bigint): bigint {
  return old + (old * percent + 99n) / 100n;
}
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new TernError('ABORTED', 'stopped'));
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(t);
      reject(new TernError('ABORTED', 'stopped'));
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class TxManager {
  private nonce: bigint | undefined;
  private chainId: bigint | undefined;
  private readonly l1: L1Rpc;
  private readonly signer: Signer;
  private readonly logger: Logger;
  private readonly signal: AbortSignal | undefined;

  constructor(
    private readonly opts: TxManagerOptions,
    deps: TxManagerDeps,
  ) {
    this.l1 = deps.l1;
    this.signer = deps.signer;
    this.logger = deps.logger;
    this.signal = deps.signal;
  }

  get address(): string {
    return this.signer.address;
  }

  /** Fees suggested by L1 now (floors applied). */
  async suggestFees(blob: boolean): Promise<TxFees> {
    const [tipRaw, head] = await Promise.all([
      this.l1.call<string>('eth_maxPriorityFeePerGas').catch(() => undefined),
      this.l1.call<Record<string, unknown>>('eth_getBlockByNumber', ['latest', false]),
    ]);
    const tipCap = max(tipRaw === undefined ? FALLBACK_TIP : q(tipRaw), this.opts.minTipCap);
    const baseFee = max(q(head?.baseFeePerGas), this.opts.minBaseFee);
    const feeCap = tipCap + 2n * baseFee;
    if (!blob) return { tipCap, feeCap };
    const blobBaseFee = await this.l1
      .call<string>('eth_blobBaseFee')
      .then(q)
      .catch(() => 1n);
    return { tipCap, feeCap, blobFeeCap: max(2n * blobBaseFee, 1n) };
  }

  /** Fees for a replacement: bumped over the last ones, at least today's suggestion, capped by the fee limit. */
  bumpFees(last: TxFees, suggested: TxFees, first: TxFees): TxFees {
    const blob = last.blobFeeCap !== undefined;
    const pct = blob ? BLOB_PRICE_BUMP : PRICE_BUMP;
    const tipCap = max(bump(last.tipCap, pct), suggested.tipCap);
    const feeCap = max(max(bump(last.feeCap, pct), suggested.feeCap), tipCap);
    const limit = BigInt(this.opts.feeLimitMultiplier);
    const over = (v: bigint, base: bigint) => v > base * limit;
    if (over(tipCap, first.tipCap) || over(feeCap, first.feeCap)) {
      throw new TernError('FEE_LIMIT', `bumped fees would exceed ${limit}× the first suggestion`);
    }
    if (!blob) return { tipCap, feeCap };
    const blobFeeCap = max(bump(last.blobFeeCap as bigint, pct), suggested.blobFeeCap ?? 0n);
    if (over(blobFeeCap, first.blobFeeCap as bigint)) {
      throw new TernError('FEE_LIMIT', `bumped blob fee would exceed ${limit}× the first suggestion`);
    }
    return { tipCap, feeCap, blobFeeCap };
  }

  /**
   * Forgets the cached nonce: the next send asks L1 again. After an L1 reorg took our transactions away, the nonces
   * they used may be free again, and later ones would wait behind the gap for ever.
   */
  resetNonce(): void {
    this.nonce = undefined;
  }

  private async nextNonce(): Promise<bigint> {
    if (this.nonce === undefined) {
      this.nonce = q(await this.l1.call<string>('eth_getTransactionCount', [this.signer.address, 'latest']));
    }
    const n = this.nonce;
    this.nonce = n + 1n;
    return n;
  }

  /** Sends the transaction and resolves once it has enough confirmations; throws when it is given up on. */
  async send(candidate: TxCandidate): Promise<TxReceipt> {
    this.chainId ??= q(await this.l1.call<string>('eth_chainId'));
    const nonce = await this.nextNonce();
    try {
      return await this.sendAt(candidate, nonce);
    } catch (err) {
      // The nonce may be unused now: ask L1 again before the next send.
      this.nonce = undefined;
      throw err;
    }
  }

  private async sendAt(candidate: TxCandidate, nonce: bigint): Promise<TxReceipt> {
    const blob = candidate.sidecar !== undefined;
    const first = await this.suggestFees(blob);
    let fees = first;
    const sign = (f: TxFees): SignedTx =>
      signTx(
        {
          chainId: this.chainId as bigint,
          nonce,
          to: candidate.to,
          gasLimit: candidate.gasLimit,
          data: candidate.data,
          ...(candidate.sidecar ? { sidecar: candidate.sidecar } : {}),
        },
        f,
        this.signer,
      );
    let current = sign(fees);
    const hashes: string[] = [];
    let accepted = false;
    let nonceTooLow = 0;
    let lastPublish = 0;
    let sawReceipt = false;
    const log = this.logger.child('tx', { nonce: nonce.toString() });

    const publish = async (): Promise<void> => {
      lastPublish = Date.now();
      if (!hashes.includes(current.hash)) hashes.push(current.hash);
      try {
        await this.l1.call('eth_sendRawTransaction', [`0x${Buffer.from(current.raw).toString('hex')}`]);
        accepted = true;
        log.info('Published batcher transaction', {
          hash: current.hash,
          tipCap: fees.tipCap.toString(),
          feeCap: fees.feeCap.toString(),
          ...(fees.blobFeeCap !== undefined ? { blobFeeCap: fees.blobFeeCap.toString() } : {}),
        });
      } catch (err) {
        const msg = err instanceof Error ? err.message : String(err);
        if (/already known|known transaction|already imported/i.test(msg)) {
          accepted = true;
          return;
        }
        if (/nonce too low/i.test(msg)) {
          nonceTooLow++;
          log.warn('L1 says nonce too low', { hash: current.hash, count: nonceTooLow });
          if (nonceTooLow >= this.opts.safeAbortNonceTooLowCount && !accepted) {
            throw new TernError('NONCE_TOO_LOW', `nonce ${nonce} is already used and none of our transactions landed`);
          }
          return;
        }
        if (/underpriced|replacement/i.test(msg)) {
          log.warn('Replacement refused as underpriced, bumping again', { err: msg });
          lastPublish = 0;
          return;
        }
        if (!accepted) throw new TernError('TX_SEND', `L1 refused the batcher transaction: ${msg}`, { cause: err });
        log.warn('Publishing failed, waiting for an earlier version', { err: msg });
      }
    };

    await publish();
    for (;;) {
      await sleep(Math.min(this.opts.receiptQueryIntervalMs, this.opts.resubmissionTimeoutMs), this.signal);
      const receipt = await this.findReceipt(hashes);
      if (receipt !== undefined) {
        sawReceipt = true;
        const head = Number(q(await this.l1.call<string>('eth_blockNumber')));
        const confs = head - receipt.blockNumber + 1;
        if (confs >= this.opts.numConfirmations) {
          log.info('Batcher transaction confirmed', { hash: receipt.txHash, block: receipt.blockNumber, confs });
          return receipt;
        }
        continue;
      }
      if (sawReceipt) {
        // It was included and is gone: an L1 reorg. Send it again at once.
        sawReceipt = false;
        log.warn('Batcher transaction reorged out of L1, sending it again', { hash: current.hash });
        await publish();
        continue;
      }
      if (Date.now() - lastPublish < this.opts.resubmissionTimeoutMs) continue;
      try {
        fees = this.bumpFees(fees, await this.suggestFees(blob), first);
        current = sign(fees);
      } catch (err) {
        if (!(err instanceof TernError && err.code === 'FEE_LIMIT')) throw err;
        log.warn('Fee limit reached, resending without a bump', { err: err.message });
      }
      await publish();
    }
  }

  private async findReceipt(hashes: readonly string[]): Promise<TxReceipt | undefined> {
    for (const hash of [...hashes].reverse()) {
      const r = await this.l1.call<Record<string, unknown> | null>('eth_getTransactionReceipt', [hash]);
      if (r && r.blockNumber !== null && r.blockNumber !== undefined) {
        return {
          txHash: hash,
          blockNumber: Number(q(r.blockNumber)),
          blockHash: String(r.blockHash),
          success: q(r.status) === 1n,
        };
      }
    }
    return undefined;
  }
}
