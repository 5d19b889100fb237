// What the user JSON-RPC namespaces of tern-exec read from (geth's ethapi.Backend, reduced to what tern serves):
// the database and chain config, a per-request consistent view, the sender cache, the gas price oracle and the
// call executor, plus the options from the command line (--networkid, --rpc.gascap, --rpc.evmtimeout, --gpo.*).
import { TernError } from '../../common/errors.js';
import type { Logger } from '../../common/logger/index.js';
import { ParamError } from '../../common/rpc/params.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import type { DecodedTx } from '../../primitives/tx/decode.js';
import { serverError } from '../../protocol/jsonrpc/errors.js';
import { recoverSender } from '../../protocol/senders/recover.js';
import { headTrieWritten } from '../chain/chainStore.js';
import { ChainView } from '../chain/chainView.js';
import type { PendingBlockSource } from '../chain/pending.js';
import type { Database } from '../db/open.js';
import { CallRunner } from './call.js';
import { GasPriceOracle, type GasPriceOracleOptions, gasPriceOracleDefaults } from './gasPrice.js';

export interface ExecRpcOptions {
  /** --networkid: 0 reports the chain id (net_version). */
  networkId?: bigint | undefined;
  /** --rpc.gascap: gas cap of eth_call and eth_estimateGas; 0 for none. */
  gasCap?: bigint | undefined;
  /** --rpc.evmtimeout in milliseconds; 0 for none. */
  evmTimeoutMs?: number | undefined;
  /** Largest debug_trace* result, about its JSON bytes (--rpc.batch-response-max-size); 0 for none. */
  traceResultMaxBytes?: number | undefined;
  /** --gpo.* */
  gpo?: Partial<GasPriceOracleOptions> | undefined;
  /** web3_clientVersion. */
  clientVersion?: string | undefined;
}

/** geth's defaults (eth/ethconfig): 50M gas cap, 5 s EVM timeout. */
export const execRpcDefaults = {
  networkId: 0n,
  gasCap: 50_000_000n,
  evmTimeoutMs: 5000,
  traceResultMaxBytes: 25_000_000,
  gpo: gasPriceOracleDefaults,
} as const;

const SENDER_CACHE_SIZE = 16_384;

/** read(): the view's head had its trie nodes on their way; the request runs again once they have landed. */
class TrieNodesPending extends Error {}

export class ExecRpcBackend {
  readonly networkId: bigint;
  readonly gasCap: bigint;
  readonly evmTimeoutMs: number;
  readonly traceResultMaxBytes: number;
  readonly clientVersion: string;
  readonly oracle: GasPriceOracle;
  readonly calls: CallRunner;
  readonly #senders = new Map<string, Uint8Array>();
  /** --rollup.computependingblock: set by the node; absent, `pending` is answered as `latest`. */
  pendingBlocks: PendingBlockSource | undefined;
  /** The block sync's progress (exec/sync) for eth_syncing: set by the node; absent or undefined: not syncing. */
  syncProgress: (() => { startingBlock: bigint; currentBlock: bigint; highestBlock: bigint } | undefined) | undefined;

  constructor(
    readonly db: Database,
    readonly config: ChainConfig,
    opts: ExecRpcOptions,
    readonly logger: Logger,
  ) {
    this.networkId = opts.networkId ?? execRpcDefaults.networkId;
    this.gasCap = opts.gasCap ?? execRpcDefaults.gasCap;
    this.evmTimeoutMs = opts.evmTimeoutMs ?? execRpcDefaults.evmTimeoutMs;
    this.traceResultMaxBytes = opts.traceResultMaxBytes ?? execRpcDefaults.traceResultMaxBytes;
    this.clientVersion = opts.clientVersion ?? 'tern-exec';
    this.oracle = new GasPriceOracle({ ...gasPriceOracleDefaults, ...opts.gpo }, this);
    this.calls = new CallRunner(this);
  }

  /**
   * Runs `fn` over a consistent view of the chain and releases the view afterwards. TernErrors (a missing trie
   * node, a malformed stored value) are answered as geth answers any plain error: -32000 with the message. With
   * `pending` set (the request names the `pending` tag), the view carries the computed pending block if there is one.
   * A trie walk that misses a node of a head whose trie nodes are still being written (ChainStore.commitBlock's
   * `deferNodes`, a few ms after a forkchoiceUpdated) runs again on a new view once they have landed.
   */
  async read<T>(fn: (view: ChainView) => T | Promise<T>, pending = false): Promise<T> {
    try {
      return await this.#readOnce(fn, pending);
    } catch (err) {
      if (!(err instanceof TrieNodesPending)) throw err;
      await headTrieWritten(this.db);
      return this.#readOnce(fn, pending, false);
    }
  }

  async #readOnce<T>(fn: (view: ChainView) => T | Promise<T>, pending: boolean, retry = true): Promise<T> {
    const view = ChainView.open(this.db, this.config);
    try {
      if (pending && this.pendingBlocks) view.pending = await this.pendingBlocks.get(view);
      return await fn(view);
    } catch (err) {
      if (retry && err instanceof TernError && err.code === 'TRIE_MISSING_NODE' && view.headTriePending())
        throw new TrieNodesPending();
      if (err instanceof TernError) throw serverError(err.message);
      if (err instanceof ParamError) throw serverError(err.message);
      throw err;
    } finally {
      view.release();
    }
  }

  /** The sender of a mined transaction, recovered once and cached by transaction hash. */
  readonly senderOf = (raw: Uint8Array, tx: DecodedTx): Uint8Array => {
    const key = Buffer.from(tx.hash).toString('hex');
    const known = this.#senders.get(key);
    if (known) return known;
    const sender = recoverSender(raw);
    if (this.#senders.size >= SENDER_CACHE_SIZE) {
      const oldest = this.#senders.keys().next().value;
      if (oldest !== undefined) this.#senders.delete(oldest);
    }
    this.#senders.set(key, sender);
    return sender;
  };
}
