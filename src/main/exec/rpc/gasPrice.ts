// geth's gas price oracle (eth/gasprice): the suggested tip (eth_maxPriorityFeePerGas, and with the head's base fee
// eth_gasPrice) from the cheapest transactions of recent blocks, op-geth's rollup suggestion on OP chains (the
// minimum suggestion, raised when the head block was nearly full), and eth_feeHistory with its reward
// percentiles. Defaults are the --gpo.* flags' (20 blocks, 60th percentile, 500 gwei cap, 2 wei floor).

import type { BlockNumberParam } from '../../common/rpc/params.js';
import type { Block } from '../../primitives/block/block.js';
import {
  type BaseFeeParams,
  blobBaseFee,
  ETHEREUM_BASE_FEE_PARAMS,
  GAS_PER_BLOB,
  nextBaseFee,
  nextExcessBlobGas,
} from '../../primitives/block/fees.js';
import type { Header } from '../../primitives/block/header.js';
import { blobParamsAt, type ChainConfig, isBlockForkActive, isTimeForkActive } from '../../primitives/chainConfig.js';
import { type DecodedTx, decodeTransaction } from '../../primitives/tx/decode.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import { type ChainView, equalBytes, type HeaderRef } from '../chain/chainView.js';
import { headerByNumber } from './blockTag.js';
import type { SenderOf } from './format.js';

export interface GasPriceOracleOptions {
  /** --gpo.blocks */
  blocks: number;
  /** --gpo.percentile */
  percentile: number;
  /** --gpo.maxprice (wei) */
  maxPrice: bigint;
  /** --gpo.ignoreprice (wei) */
  ignorePrice: bigint;
  /** --gpo.minsuggestedpriorityfee (wei), OP chains only */
  minSuggestedPriorityFee: bigint;
  /** eth_feeHistory block limits without / with reward percentiles. */
  maxHeaderHistory: number;
  maxBlockHistory: number;
  /** The suggestion before any block was sampled (geth: the miner's gas price, 1 mwei). */
  startPrice: bigint;
}

export const gasPriceOracleDefaults: GasPriceOracleOptions = {
  blocks: 20,
  percentile: 60,
  maxPrice: 500_000_000_000n,
  ignorePrice: 2n,
  minSuggestedPriorityFee: 1_000_000n,
  maxHeaderHistory: 1024,
  maxBlockHistory: 1024,
  startPrice: 1_000_000n,
};

/** What the oracle reads through. */
export interface OracleBackend {
  readonly config: ChainConfig;
  read<T>(fn: (view: ChainView) => T | Promise<T>): Promise<T>;
  readonly senderOf: SenderOf;
}

/** Transactions sampled per block. */
const SAMPLE_NUMBER = 3;
/** Most reward percentiles one eth_feeHistory call may ask for. */
const MAX_QUERY_LIMIT = 100;

/** The tip a transaction pays above `baseFee` (geth's EffectiveGasTip; negative when the fee cap is below it). */
export function effectiveTip(tx: DecodedTx, baseFee: bigint | undefined): bigint {
  const tipCap = tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n;
  const feeCap = tx.maxFeePerGas ?? tx.gasPrice ?? 0n;
  if (baseFee === undefined) return tipCap;
  const room = feeCap - baseFee;
  return room < tipCap ? room : tipCap;
}

/** The EIP-1559 parameters an OP chain uses for the child of `parent` (Canyon denominator, Holocene extraData). */
function baseFeeParamsAfter(config: ChainConfig, parent: Header): BaseFeeParams {
  const op = config.optimism;
  if (!op) return ETHEREUM_BASE_FEE_PARAMS;
  if (isTimeForkActive(config, 'holoceneTime', parent.timestamp) && parent.extraData.length >= 9) {
    const x = Buffer.from(parent.extraData);
    const denominator = BigInt(x.readUInt32BE(1));
    const elasticity = BigInt(x.readUInt32BE(5));
    if (denominator !== 0n) return { elasticity, denominator };
  }
  const canyon = isTimeForkActive(config, 'canyonTime', parent.timestamp);
  return {
    elasticity: op.eip1559Elasticity,
    denominator:
      canyon && op.eip1559DenominatorCanyon !== undefined ? op.eip1559DenominatorCanyon : op.eip1559Denominator,
  };
}

/** The base fee of the child of `parent` (eip1559.CalcBaseFee), or 0 when the child is before London. */
export function childBaseFee(config: ChainConfig, parent: Header): bigint {
  if (!isBlockForkActive(config, 'londonBlock', parent.number + 1n)) return 0n;
  if (parent.baseFeePerGas === undefined) return 1_000_000_000n;
  return nextBaseFee(
    { gasLimit: parent.gasLimit, gasUsed: parent.gasUsed, baseFeePerGas: parent.baseFeePerGas },
    baseFeeParamsAfter(config, parent),
  );
}

/** The blob base fee of a block (eip4844.CalcBlobFee); undefined before Cancun. */
export function headerBlobBaseFee(config: ChainConfig, header: Header): bigint | undefined {
  if (header.excessBlobGas === undefined) return undefined;
  const params = blobParamsAt(config, header.timestamp);
  return params === undefined ? 1n : blobBaseFee(header.excessBlobGas, params);
}

interface ProcessedFees {
  reward: bigint[] | undefined;
  baseFee: bigint;
  nextBaseFee: bigint;
  gasUsedRatio: number;
  blobGasUsedRatio: number;
  blobBaseFee: bigint;
  nextBlobBaseFee: bigint;
}

export interface FeeHistory {
  oldestBlock: bigint;
  reward: bigint[][] | undefined;
  baseFee: bigint[] | undefined;
  gasUsedRatio: number[] | undefined;
  blobBaseFee: bigint[] | undefined;
  blobGasUsedRatio: number[] | undefined;
}

/** Go's %f: six decimals. */
const goFloat = (p: number): string => p.toFixed(6);

export class GasPriceOracle {
  #lastHead: Uint8Array | undefined;
  #lastPrice: bigint;
  readonly #opts: GasPriceOracleOptions;

  constructor(
    opts: GasPriceOracleOptions,
    private readonly backend: OracleBackend,
  ) {
    // geth's sanitizing of out-of-range settings.
    this.#opts = {
      ...opts,
      blocks: Math.max(1, opts.blocks),
      percentile: Math.min(100, Math.max(0, opts.percentile)),
      maxPrice: opts.maxPrice > 0n ? opts.maxPrice : gasPriceOracleDefaults.maxPrice,
      ignorePrice: opts.ignorePrice > 0n ? opts.ignorePrice : gasPriceOracleDefaults.ignorePrice,
      minSuggestedPriorityFee:
        opts.minSuggestedPriorityFee > 0n
          ? opts.minSuggestedPriorityFee
          : gasPriceOracleDefaults.minSuggestedPriorityFee,
      maxHeaderHistory: Math.max(1, opts.maxHeaderHistory),
      maxBlockHistory: Math.max(1, opts.maxBlockHistory),
    };
    this.#lastPrice = opts.startPrice;
  }

  /** The suggested priority fee (geth's SuggestTipCap), cached per head block. */
  suggestTipCap(view: ChainView): bigint {
    const head = view.head();
    if (equalBytes(head.hash, this.#lastHead)) return this.#lastPrice;
    const price = this.backend.config.optimism ? this.#optimismSuggestion(view, head) : this.#sample(view, head);
    this.#lastHead = head.hash;
    this.#lastPrice = price;
    return price;
  }

  #sample(view: ChainView, head: HeaderRef): bigint {
    const { blocks, percentile, ignorePrice, maxPrice } = this.#opts;
    const lastPrice = this.#lastPrice;
    const results: bigint[] = [];
    let number = head.header.number;
    // geth fetches `blocks` blocks and one more for each block that gave a single sample, while the total stays
    // under twice the sample target.
    let pending = 0;
    const queue: bigint[] = [];
    while (queue.length < blocks && number > 0n) queue.push(number--);
    pending = queue.length;
    while (queue.length > 0) {
      const n = queue.shift() as bigint;
      pending--;
      let values = this.#blockValues(view, n, ignorePrice);
      if (values.length === 0) values = [lastPrice];
      if (values.length === 1 && results.length + 1 + pending < blocks * 2 && number > 0n) {
        queue.push(number--);
        pending++;
      }
      results.push(...values);
    }
    let price = lastPrice;
    if (results.length > 0) {
      results.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      price = results[Math.floor(((results.length - 1) * percentile) / 100)] as bigint;
    }
    if (price > maxPrice) price = maxPrice;
    return price;
  }

  /** Up to three of the lowest tips in block `n`, leaving out the block producer's own transactions. */
  #blockValues(view: ChainView, n: bigint, ignoreUnder: bigint): bigint[] {
    const ref = view.headerByNumber(n);
    const block = ref && view.block(ref.hash);
    if (!block) return [];
    const baseFee = block.header.baseFeePerGas;
    const txs = block.transactions.map((raw) => ({ raw, tx: decodeTransaction(raw) }));
    const tips = txs.map(({ tx }) => effectiveTip(tx, baseFee));
    const order = txs
      .map((_, i) => i)
      .sort((a, b) => {
        const x = tips[a] as bigint;
        const y = tips[b] as bigint;
        return x < y ? -1 : x > y ? 1 : 0;
      });
    const prices: bigint[] = [];
    for (const i of order) {
      const tip = tips[i] as bigint;
      if (tip < ignoreUnder) continue;
      const { raw, tx } = txs[i] as { raw: Uint8Array; tx: DecodedTx };
      let sender: Uint8Array;
      try {
        sender = this.backend.senderOf(raw, tx);
      } catch {
        continue;
      }
      if (!equalBytes(sender, block.header.coinbase)) {
        prices.push(tip);
        if (prices.length >= SAMPLE_NUMBER) break;
      }
    }
    return prices;
  }

  /** op-geth's SuggestOptimismPriorityFee: the minimum, or 110% of the head's median tip when it was near full. */
  #optimismSuggestion(view: ChainView, head: HeaderRef): bigint {
    let suggestion = this.#opts.minSuggestedPriorityFee;
    const receipts = view.receipts(head);
    if (!receipts) return suggestion;
    let maxTxGasUsed = 0n;
    let prev = 0n;
    for (const r of receipts) {
      const used = r.cumulativeGasUsed - prev;
      prev = r.cumulativeGasUsed;
      if (used > maxTxGasUsed) maxTxGasUsed = used;
    }
    const h = head.header;
    if (maxTxGasUsed > h.gasLimit) return suggestion;
    if (h.gasUsed + maxTxGasUsed > h.gasLimit) {
      const block = view.block(head.hash);
      if (!block || block.transactions.length === 0) return suggestion;
      const tips = block.transactions
        .map((raw) => effectiveTip(decodeTransaction(raw), h.baseFeePerGas))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const median = tips[Math.floor(tips.length / 2)] as bigint;
      const raised = median + median / 10n;
      if (raised > suggestion) suggestion = raised;
    }
    if (suggestion > this.#opts.maxPrice) suggestion = this.#opts.maxPrice;
    return suggestion;
  }

  /** eth_feeHistory (geth's Oracle.FeeHistory). */
  feeHistory(view: ChainView, requested: bigint, last: BlockNumberParam, percentiles: readonly number[]): FeeHistory {
    const empty: FeeHistory = {
      oldestBlock: 0n,
      reward: undefined,
      baseFee: undefined,
      gasUsedRatio: undefined,
      blobBaseFee: undefined,
      blobGasUsedRatio: undefined,
    };
    if (requested < 1n) return empty;
    const maxHistory = BigInt(percentiles.length > 0 ? this.#opts.maxBlockHistory : this.#opts.maxHeaderHistory);
    if (percentiles.length > MAX_QUERY_LIMIT) {
      throw serverError(`invalid reward percentile: over the query limit ${MAX_QUERY_LIMIT}`);
    }
    let blocks = requested > maxHistory ? maxHistory : requested;
    percentiles.forEach((p, i) => {
      if (p < 0 || p > 100) throw serverError(`invalid reward percentile: ${goFloat(p)}`);
      const prev = percentiles[i - 1];
      if (prev !== undefined && p <= prev) {
        throw serverError(`invalid reward percentile: #${i - 1}:${goFloat(prev)} >= #${i}:${goFloat(p)}`);
      }
    });
    const head = view.head();
    if (typeof last === 'bigint' && last > head.header.number) {
      throw serverError(`request beyond head block: requested ${last}, head ${head.header.number}`);
    }
    const resolved = typeof last === 'bigint' ? last : headerByNumber(view, last)?.header.number;
    if (resolved === undefined) return empty;
    if (resolved + 1n < blocks) blocks = resolved + 1n;
    const oldest = resolved + 1n - blocks;
    const n = Number(blocks);
    const fees: Array<ProcessedFees | undefined> = [];
    for (let i = 0; i < n; i++) fees.push(this.#processBlock(view, oldest + BigInt(i), percentiles));
    let firstMissing = fees.indexOf(undefined);
    if (firstMissing === -1) firstMissing = n;
    if (firstMissing === 0) return empty;
    const got = fees.slice(0, firstMissing) as ProcessedFees[];
    const lastFees = got[got.length - 1] as ProcessedFees;
    return {
      oldestBlock: oldest,
      reward: percentiles.length > 0 ? got.map((f) => f.reward ?? []) : undefined,
      baseFee: [...got.map((f) => f.baseFee), lastFees.nextBaseFee],
      gasUsedRatio: got.map((f) => f.gasUsedRatio),
      blobBaseFee: [...got.map((f) => f.blobBaseFee), lastFees.nextBlobBaseFee],
      blobGasUsedRatio: got.map((f) => f.blobGasUsedRatio),
    };
  }

  #processBlock(view: ChainView, number: bigint, percentiles: readonly number[]): ProcessedFees | undefined {
    const config = this.backend.config;
    const ref = view.headerByNumber(number);
    if (!ref) return undefined;
    const h = ref.header;
    const out: ProcessedFees = {
      reward: undefined,
      baseFee: h.baseFeePerGas ?? 0n,
      nextBaseFee: childBaseFee(config, h),
      gasUsedRatio: Number(h.gasUsed) / Number(h.gasLimit),
      blobGasUsedRatio: 0,
      blobBaseFee: 0n,
      nextBlobBaseFee: 0n,
    };
    const params = blobParamsAt(config, h.timestamp);
    if (h.excessBlobGas !== undefined) {
      out.blobBaseFee = headerBlobBaseFee(config, h) ?? 0n;
      if (params) {
        const excess = nextExcessBlobGas(h, params);
        out.nextBlobBaseFee = blobBaseFee(excess, params);
      } else {
        out.nextBlobBaseFee = out.blobBaseFee;
      }
    }
    if (h.blobGasUsed !== undefined && params) {
      const maxBlobGas = BigInt(params.max) * GAS_PER_BLOB;
      if (maxBlobGas !== 0n) out.blobGasUsedRatio = Number(h.blobGasUsed) / Number(maxBlobGas);
    }
    if (percentiles.length === 0) return out;
    const block = view.block(ref.hash);
    const receipts = view.receipts(ref);
    if (!block || (!receipts && block.transactions.length > 0)) return out;
    out.reward = rewards(block, receipts ?? [], percentiles);
    return out;
  }
}

/** The tip paid at each gas-weighted percentile of a block's transactions (sorted by tip, stable). */
function rewards(block: Block, receipts: readonly { cumulativeGasUsed: bigint }[], percentiles: readonly number[]) {
  const txs = block.transactions;
  if (txs.length === 0) return percentiles.map(() => 0n);
  const baseFee = block.header.baseFeePerGas;
  let prev = 0n;
  const sorter = txs.map((raw, i) => {
    const cumulative = receipts[i]?.cumulativeGasUsed ?? prev;
    const gasUsed = cumulative - prev;
    prev = cumulative;
    return { gasUsed, reward: effectiveTip(decodeTransaction(raw), baseFee), i };
  });
  sorter.sort((a, b) => (a.reward < b.reward ? -1 : a.reward > b.reward ? 1 : a.i - b.i));
  const blockGasUsed = Number(block.header.gasUsed);
  let txIndex = 0;
  let sumGasUsed = (sorter[0] as (typeof sorter)[number]).gasUsed;
  return percentiles.map((p) => {
    const threshold = BigInt(Math.floor((blockGasUsed * p) / 100));
    while (sumGasUsed < threshold && txIndex < txs.length - 1) {
      txIndex++;
      sumGasUsed += (sorter[txIndex] as (typeof sorter)[number]).gasUsed;
    }
    return (sorter[txIndex] as (typeof sorter)[number]).reward;
  });
}
