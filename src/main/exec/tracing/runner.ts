// Re-execution for debug_trace*: a stored block replayed on its parent's state through processBlock (so the block
// start system calls — EIP-4788, EIP-2935, Canyon's deployer — and every transaction before the traced one, OP
// deposits included, run exactly as at import), with a tracer attached only to the transactions asked for; and a
// call traced on the state of a block the way eth_call runs it. One executor serves the requests one at a time;
// its flat-state overlay is dropped after each. Nothing is persisted.
import { Address } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import type { BlockNumberOrHash } from '../../common/rpc/params.js';
import type { Block } from '../../primitives/block/block.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import type { DecodedTx } from '../../primitives/tx/decode.js';
import { decodeTransaction } from '../../primitives/tx/decode.js';
import { type RpcError, serverError } from '../../protocol/jsonrpc/errors.js';
import type { ChainView, HeaderRef } from '../chain/chainView.js';
import { processBlock } from '../chain/processBlock.js';
import { stateAt } from '../chain/stateAt.js';
import type { CallScope } from '../evm/call.js';
import { type CallArgs, callDefaults, messageTransaction, toMessage } from '../evm/callMessage.js';
import type { TxHooks } from '../evm/context.js';
import { blockEnv, createExecutor } from '../evm/executor.js';
import type { SnapshotPin } from '../evm/remoteScope.js';
import { applyTransaction, type Executor } from '../evm/transition.js';
import { ResultBudget, type TracerBase } from './base.js';
import type { TraceConfig } from './config.js';
import { createTracer } from './directory.js';
import { hexBytes } from './format.js';
import { TraceStopped } from './interface.js';

/** What the runner reads through (ExecRpcBackend has this shape). */
export interface TraceBackend {
  readonly config: ChainConfig;
  readonly gasCap: bigint;
  read<T>(fn: (view: ChainView) => T | Promise<T>): Promise<T>;
  senderOf(raw: Uint8Array, tx: DecodedTx): Uint8Array;
  /** Largest result of one request, about its JSON bytes (--rpc.batch-response-max-size); 0 or absent for none. */
  readonly traceResultMaxBytes?: number | undefined;
  /** The call workers (ExecRpcBackend's CallRunner): debug_traceCall runs there when they are up. */
  readonly calls?: RemoteTraceCalls | undefined;
}

/** Traced calls run elsewhere: `pooled()` says whether they can be. */
export interface RemoteTraceCalls {
  pooled(): boolean;
  /** Where a call worker reads block `ref` from its own snapshot; undefined when only this thread sees it. */
  pinOf(view: ChainView, ref: HeaderRef): SnapshotPin | undefined;
  traceCall(scope: CallScope, args: CallArgs, cfg: TraceConfig, pin?: SnapshotPin): Promise<unknown>;
}

/** One entry of debug_traceBlock*: geth's txTraceResult. */
export interface TxTraceResult {
  txHash: string;
  result?: unknown;
  error?: string;
}

/** Thrown by the replay hooks once the traced transaction ended: the rest of the block is not executed. */
class ReplayDone extends Error {}

const EMPTY_READER = { getAccount: () => undefined, getStorage: () => 0n, getCode: () => new Uint8Array(0) };
const ZERO_ADDRESS = new Uint8Array(20);

export class TraceRunner {
  #executor: Promise<Executor> | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly backend: TraceBackend) {}

  #exclusive<T>(fn: (executor: Executor) => Promise<T>): Promise<T> {
    const run = this.#queue.then(async () => {
      const executor = await this.#getExecutor();
      try {
        return await fn(executor);
      } finally {
        executor.tracer = undefined;
        executor.state.reset(EMPTY_READER);
      }
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** A fresh result budget for one request (undefined when unbounded). */
  #budget(): ResultBudget | undefined {
    const limit = this.backend.traceResultMaxBytes ?? 0;
    return limit > 0 ? new ResultBudget(limit) : undefined;
  }

  #getExecutor(): Promise<Executor> {
    this.#executor ??= (async () => {
      return createExecutor(this.backend.config, EMPTY_READER);
    })();
    return this.#executor;
  }

  /** debug_traceTransaction. */
  traceTransaction(hash: Uint8Array, cfg: TraceConfig): Promise<unknown> {
    createTracer(cfg);
    return this.#exclusive((executor) =>
      this.backend.read(async (view) => {
        const lookup = view.txLookup(hash);
        if (lookup === undefined) throw serverError('transaction not found');
        const ref = view.headerByNumber(BigInt(lookup.blockNumber));
        const block = ref && view.block(ref.hash);
        if (ref === undefined || block === undefined) throw serverError('transaction not found');
        if (block.header.number === 0n) throw serverError('genesis is not traceable');
        const tracer = createTracer(cfg);
        tracer.budget = this.#budget();
        await this.#replay(executor, view, block, (i) => (i === lookup.index ? tracer : undefined), lookup.index, cfg);
        return tracerResult(tracer);
      }),
    );
  }

  /** debug_traceBlockByNumber / debug_traceBlockByHash: every transaction of the block, each with its own tracer. */
  traceBlock(select: (view: ChainView) => HeaderRef, cfg: TraceConfig): Promise<TxTraceResult[]> {
    createTracer(cfg);
    return this.#exclusive((executor) =>
      this.backend.read(async (view) => {
        const ref = select(view);
        const block = view.block(ref.hash);
        if (block === undefined) throw serverError(`block ${hexBytes(ref.hash)} not found`);
        if (block.header.number === 0n) throw serverError('genesis is not traceable');
        const tracers: TracerBase[] = [];
        const budget = this.#budget();
        await this.#replay(
          executor,
          view,
          block,
          (i) => {
            const tracer = createTracer(cfg);
            tracer.budget = budget;
            tracers[i] = tracer;
            return tracer;
          },
          undefined,
          cfg,
        );
        return block.transactions.map((raw, i) => {
          const txHash = hexBytes(decodeTransaction(raw).hash);
          const tracer = tracers[i];
          if (tracer === undefined) return { txHash, error: 'transaction was not executed' };
          return { txHash, result: tracerResult(tracer) };
        });
      }),
    );
  }

  /** Replays `block` on its parent's state; `pick(i)` gives the tracer of transaction i (or none). */
  async #replay(
    executor: Executor,
    view: ChainView,
    block: Block,
    pick: (index: number) => TracerBase | undefined,
    stopAfter: number | undefined,
    cfg: TraceConfig,
  ): Promise<void> {
    const h = block.header;
    const parentHeader = view.headerByHash(h.parentHash);
    if (parentHeader === undefined) throw serverError(`parent ${hexBytes(h.parentHash)} not found`);
    executor.state.reset(stateAt(view, { header: parentHeader, hash: h.parentHash }));
    const senders = block.transactions.map((raw) => {
      const tx = decodeTransaction(raw);
      return tx.deposit !== undefined ? ZERO_ADDRESS : this.backend.senderOf(raw, tx);
    });
    let index = -1;
    let current: TracerBase | undefined;
    let stopped: Error | undefined;
    const hooks: TxHooks = {
      onTxStart: (ctx, tx, sender) => {
        index++;
        current = pick(index);
        if (current === undefined) return;
        current.deadline = cfg.timeoutMs > 0 ? performance.now() + cfg.timeoutMs : undefined;
        current.onTxStart(ctx, tx, sender);
      },
      onTxEnd: (result, error) => {
        current?.onTxEnd(result, error);
        stopped = current?.stopped;
        current = undefined;
        if (stopAfter !== undefined && index >= stopAfter) throw new ReplayDone();
      },
    };
    executor.tracer = hooks;
    try {
      await processBlock({
        executor,
        config: this.backend.config,
        block,
        senders,
        getBlockHash: (n) => (n < h.number ? view.canonicalHash(n) : undefined),
      });
    } catch (err) {
      if (err instanceof ReplayDone) return;
      if (err instanceof TraceStopped) throw serverError(stopped?.message ?? err.message);
      if (err instanceof TernError) throw serverError(`tracing failed: ${err.message}`);
      throw err;
    }
  }

  /**
   * debug_traceCall: the call run as eth_call runs it on the state of the selected block, traced — on a call worker
   * when the backend has them (the state served from this thread's view), otherwise here one at a time.
   */
  traceCall(args: CallArgs, sel: BlockNumberOrHash, requested: TraceConfig): Promise<unknown> {
    createTracer(requested);
    // The result bound travels with the config: the call worker that may run it builds its own budget.
    const cfg: TraceConfig = { ...requested, maxResultBytes: this.backend.traceResultMaxBytes ?? 0 };
    const { config, gasCap } = this.backend;
    const scopeOf = (view: ChainView): CallScope => {
      const ref = traceCallBlock(view, sel);
      return { header: ref.header, reader: stateAt(view, ref), getBlockHash: (n) => view.canonicalHash(n) };
    };
    const remote = this.backend.calls;
    if (remote?.pooled() === true) {
      // The worker reads the block's state from its own snapshot when it can (pinOf), else from this view.
      return this.backend.read((view) =>
        remote.traceCall(scopeOf(view), args, cfg, remote.pinOf(view, traceCallBlock(view, sel))),
      );
    }
    return this.#exclusive((executor) =>
      this.backend.read((view) => traceCallOnScope(executor, config, gasCap, scopeOf(view), args, cfg)),
    );
  }
}

/** debug_traceCall's run on `scope` with `executor` (here or on a call worker); resets the executor after. */
export async function traceCallOnScope(
  executor: Executor,
  config: ChainConfig,
  gasCap: bigint,
  scope: CallScope,
  args: CallArgs,
  cfg: TraceConfig,
): Promise<unknown> {
  executor.state.reset(scope.reader);
  const h = scope.header;
  const filled = callDefaults(args, gasCap, h.baseFeePerGas, config.chainId);
  const msg = toMessage(filled, h.baseFeePerGas);
  const env = blockEnv(config, executor.common, h, scope.getBlockHash, {
    noBaseFee: msg.gasPrice === 0n,
    noBlobBaseFee: msg.blobFeeCap === 0n,
  });
  const sender = new Address(msg.from);
  const tx = messageTransaction(msg, executor.state.getNonce(sender));
  const ctx = executor.startBlock(env);
  // The message's own gas is the gas pool (geth's traceTx).
  ctx.gasUsed = env.gasLimit - msg.gasLimit;
  const tracer = createTracer(cfg);
  tracer.deadline = cfg.timeoutMs > 0 ? performance.now() + cfg.timeoutMs : undefined;
  const maxBytes = cfg.maxResultBytes ?? 0;
  tracer.budget = maxBytes > 0 ? new ResultBudget(maxBytes) : undefined;
  executor.tracer = tracer;
  try {
    await applyTransaction(ctx, tx, sender);
    return tracerResult(tracer);
  } catch (err) {
    if (err instanceof TraceStopped) throw serverError(tracer.stopped?.message ?? err.message);
    if (err instanceof TernError) throw serverError(`tracing failed: ${err.message}`);
    throw err;
  } finally {
    executor.tracer = undefined;
    executor.state.reset(EMPTY_READER);
  }
}

/** geth's TraceCall block selection: pending is refused, an unknown block named. */
function traceCallBlock(view: ChainView, sel: BlockNumberOrHash): HeaderRef {
  if (sel.blockHash !== undefined) {
    const header = view.headerByHash(Uint8Array.from(Buffer.from(sel.blockHash.slice(2), 'hex')));
    if (header === undefined) throw serverError(`block ${sel.blockHash} not found`);
    return { header, hash: Uint8Array.from(Buffer.from(sel.blockHash.slice(2), 'hex')) };
  }
  const n = sel.blockNumber;
  if (n === 'pending') throw serverError('tracing on top of pending is not supported');
  let ref: HeaderRef | undefined;
  if (n === 'latest') ref = view.head();
  else if (n === 'earliest') ref = view.headerByNumber(0n);
  else if (n === 'safe') ref = view.safe();
  else if (n === 'finalized') ref = view.finalized();
  else ref = view.headerByNumber(n);
  if (ref === undefined) throw serverError(typeof n === 'bigint' ? `block #${n} not found` : `${n} block not found`);
  return ref;
}

/** The tracer's result, or its stop reason as geth answers it (-32000). */
function tracerResult(tracer: TracerBase): unknown {
  try {
    return tracer.result();
  } catch (err) {
    if (err instanceof Error) throw asRpc(err);
    throw err;
  }
}

function asRpc(err: Error): RpcError {
  return serverError(err.message);
}
