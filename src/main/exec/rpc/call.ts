// eth_call, eth_estimateGas and eth_createAccessList as JSON-RPC sees them: the block the request names, read through
// one chain view, handed to the call executor (../evm/call.ts) as the header, the state after it and the chain's
// block hashes; eth_createAccessList's fee defaults from the gas price oracle. The answers keep geth's words.
// With a call pool (../workers/calls.ts) the executor runs on a worker thread, several calls at once: this thread
// resolves the block and the worker reads that block's state from its own LMDB snapshot (../workers/snapshotScope.ts),
// so no read waits for this thread, which stays free for the Engine API; where only this thread can see the state
// (the in-memory store, a computed pending block) it answers the worker's reads from its view
// (../evm/remoteScope.ts). A call still running past --rpc.evmtimeout (plus a grace) has its thread terminated.
// Without a pool (it could not start, or tests of the inline twin) the calls run here one after another.
import { MessageChannel } from 'node:worker_threads';
import { formatDuration } from '../../common/duration.js';
import type { Logger } from '../../common/logger/index.js';
import type { BlockNumberOrHash } from '../../common/rpc/params.js';
import type { TaskMapOf, WorkerPool } from '../../pool/interface.js';
import { blobBaseFee } from '../../primitives/block/fees.js';
import { blobParamsAt, type ChainConfig } from '../../primitives/chainConfig.js';
import { RpcError, serverError } from '../../protocol/jsonrpc/errors.js';
import { type ChainView, equalBytes, type HeaderRef } from '../chain/chainView.js';
import { stateAt } from '../chain/stateAt.js';
import type { Database } from '../db/open.js';
import { type AccessListResult, CallExecutor, type CallOutcome, type CallScope } from '../evm/call.js';
import type { CallArgs } from '../evm/callMessage.js';
import { type SnapshotPin, serveScope } from '../evm/remoteScope.js';
import type { TraceConfig } from '../tracing/config.js';
import type * as callTasks from '../workers/calls.js';
import type { CallOp, RunCallOutput } from '../workers/calls.js';
import { isPending, stateBlockRef } from './blockTag.js';
import { hex } from './format.js';
import type { GasPriceOracle } from './gasPrice.js';

/** What the call runner reads through. */
export interface CallBackend {
  readonly config: ChainConfig;
  readonly gasCap: bigint;
  readonly evmTimeoutMs: number;
  readonly oracle: GasPriceOracle;
  readonly logger: Logger;
  /** The database: a call worker opens an LMDB one itself (paths), nothing else can cross threads. */
  readonly db: Pick<Database, 'engine' | 'paths'>;
  read<T>(fn: (view: ChainView) => T | Promise<T>, pending?: boolean): Promise<T>;
}

/** The scope of a call on block `ref` of `view`: its header, the state after it, the view's canonical hashes. */
function callScope(view: ChainView, ref: HeaderRef): CallScope {
  return { header: ref.header, reader: stateAt(view, ref), getBlockHash: (n) => view.canonicalHash(n) };
}

/** What a worker reads a call's state from: this thread's scope over the port, or its own snapshot of a block. */
type CallSite = { readonly scope: CallScope } | { readonly header: CallScope['header']; readonly pin: SnapshotPin };

/** The call workers' tasks and their pool. */
export type CallTasks = TaskMapOf<typeof callTasks>;
export type CallPool = WorkerPool<CallTasks>;

/** How long past --rpc.evmtimeout a call may keep its worker before the thread is terminated. */
export const CALL_KILL_GRACE_MS = 1000;

const SHUTTING_DOWN = 'shutting down';

export class CallRunner {
  readonly #executor: CallExecutor;
  #pool: CallPool | undefined;
  /** Calls running or queued on the workers: aborted when the node stops. */
  readonly #inflight = new Set<AbortController>();

  constructor(private readonly backend: CallBackend) {
    this.#executor = new CallExecutor(backend.config, backend);
  }

  /** Runs the calls on `pool` from now on (undefined: back on this thread). */
  usePool(pool: CallPool | undefined): void {
    this.#pool = pool;
  }

  /** `op` on the selected block: on a call worker when there is a pool, otherwise here after the calls before it. */
  async #run<T>(op: CallOp, sel: BlockNumberOrHash, args: (scope: CallScope, view: ChainView) => CallArgs): Promise<T> {
    const pool = this.#pool;
    if (pool === undefined) {
      return this.#executor.exclusive(() =>
        this.backend.read(async (view) => {
          const scope = callScope(view, stateBlockRef(view, sel));
          return (await this.#inline(op, scope, args(scope, view))) as T;
        }, isPending(sel)),
      );
    }
    // A call the worker reads itself leaves the view (and its snapshot) behind before it runs; a proxied one runs
    // inside the view that serves its reads.
    type Resolved = { out: RunCallOutput } | { header: HeaderRef['header']; pin: SnapshotPin; callArgs: CallArgs };
    const resolved = await this.backend.read<Resolved>(async (view) => {
      const ref = stateBlockRef(view, sel);
      const scope = callScope(view, ref);
      const callArgs = args(scope, view);
      const pin = this.pinOf(view, ref);
      if (pin === undefined) return { out: await this.#remote(pool, op, { scope }, callArgs) };
      return { header: ref.header, pin, callArgs };
    }, isPending(sel));
    const out =
      'out' in resolved
        ? resolved.out
        : await this.#remote(pool, op, { header: resolved.header, pin: resolved.pin }, resolved.callArgs);
    if ('rpcError' in out) throw RpcError.fromObject(out.rpcError);
    return out.value as T;
  }

  /**
   * Where a call worker reads block `ref` of `view` itself: the LMDB database by its paths, the block by its hash.
   * Undefined for the in-memory store and for the computed pending block: only this thread sees those.
   */
  pinOf(view: ChainView, ref: HeaderRef): SnapshotPin | undefined {
    const paths = this.backend.db.paths;
    if (this.backend.db.engine !== 'lmdb' || paths === undefined) return undefined;
    if (view.pending !== undefined && equalBytes(view.pending.ref.hash, ref.hash)) return undefined;
    return { paths: { chaindata: paths.chaindata, ancientChain: paths.ancientChain }, hash: ref.hash };
  }

  #inline(op: CallOp, scope: CallScope, args: CallArgs): Promise<unknown> {
    switch (op) {
      case 'doCall':
        return this.#executor.doCall(scope, args);
      case 'call':
        return this.#executor.call(scope, args);
      case 'estimateGas':
        return this.#executor.estimateGas(scope, args);
      case 'createAccessList':
        return this.#executor.createAccessList(scope, args);
      case 'traceCall':
        // Traced calls run inline through the trace runner (../tracing/runner.ts), never from here.
        throw serverError('traceCall is not a call-runner operation');
    }
  }

  /** Ends every call on the workers now (the node is stopping): they answer an error, their threads end. */
  abortAll(): void {
    for (const abort of this.#inflight) abort.abort(SHUTTING_DOWN);
  }

  /** Whether calls run on the call workers (debug_traceCall asks). */
  pooled(): boolean {
    return this.#pool !== undefined;
  }

  /**
   * debug_traceCall on a call worker, on `scope` (the tracer's timeout bounds it), read from the worker's own
   * snapshot when `pin` says where; only when pooled().
   */
  async traceCall(scope: CallScope, args: CallArgs, trace: TraceConfig, pin?: SnapshotPin): Promise<unknown> {
    const pool = this.#pool;
    if (pool === undefined) throw serverError('no call workers');
    const site: CallSite = pin === undefined ? { scope } : { header: scope.header, pin };
    const out = await this.#remote(pool, 'traceCall', site, args, trace);
    if ('rpcError' in out) throw RpcError.fromObject(out.rpcError);
    return out.value;
  }

  /**
   * Warms every call worker with one small call at the head (../workers/calls.ts `warmUp`), so that the first
   * users' calls do not pay for a thread's first call. Resolves to the threads warmed (0 without a pool).
   */
  async warmUp(): Promise<number> {
    const pool = this.#pool;
    if (pool === undefined) return 0;
    const barrier = new Int32Array(new SharedArrayBuffer(8));
    barrier[1] = pool.threads;
    const warmAll = (site: CallSite) =>
      Promise.all(
        Array.from({ length: pool.threads }, () => this.#remote(pool, 'doCall', site, {}, undefined, barrier)),
      );
    // As #run: a scope served from this thread lives only inside its read; a pinned snapshot outlives it.
    type Warmed = { threads: Awaited<ReturnType<typeof warmAll>> } | { site: CallSite };
    const warmed = await this.backend.read<Warmed>(async (view) => {
      const ref = stateBlockRef(view, { blockNumber: 'latest', requireCanonical: false });
      const pin = this.pinOf(view, ref);
      if (pin === undefined) return { threads: await warmAll({ scope: callScope(view, ref) }) };
      return { site: { header: ref.header, pin } };
    });
    const threads = 'threads' in warmed ? warmed.threads : await warmAll(warmed.site);
    return new Set(threads.map((t) => t.threadId)).size;
  }

  /** One call on a worker: its reads from the worker's own snapshot (pin) or answered from `scope` while it runs. */
  async #remote(
    pool: CallPool,
    op: CallOp,
    site: CallSite,
    args: CallArgs,
    trace?: TraceConfig,
  ): Promise<RunCallOutput>;
  /** The warm-up's call (`barrier` given): the thread that ran it, with its answer. */
  async #remote(
    pool: CallPool,
    op: CallOp,
    site: CallSite,
    args: CallArgs,
    trace: undefined,
    barrier: Int32Array,
  ): Promise<RunCallOutput & { threadId: number }>;
  async #remote(
    pool: CallPool,
    op: CallOp,
    site: CallSite,
    args: CallArgs,
    trace?: TraceConfig,
    barrier?: Int32Array,
  ): Promise<RunCallOutput | (RunCallOutput & { threadId: number })> {
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4));
    const abort = new AbortController();
    this.#inflight.add(abort);
    const timeoutMs = trace === undefined ? this.backend.evmTimeoutMs : trace.timeoutMs;
    let killTimer: NodeJS.Timeout | undefined;
    const onStart = () => {
      if (timeoutMs > 0) killTimer = setTimeout(() => abort.abort(), timeoutMs + CALL_KILL_GRACE_MS);
    };
    if ('scope' in site) serveScope(site.scope, port1, flag, onStart);
    else port1.on('message', (req: { k?: unknown }) => req.k === 'start' && onStart());
    const header = 'scope' in site ? site.scope.header : site.header;
    const pin = 'pin' in site ? site.pin : undefined;
    try {
      const input = {
        op,
        config: this.backend.config,
        limits: { gasCap: this.backend.gasCap, evmTimeoutMs: timeoutMs },
        args,
        trace,
        header,
        pin,
        port: port2,
        flag,
      };
      // A MessagePort moves to the worker; the pool's transfer list is typed for buffers only.
      const options = { signal: abort.signal, transfer: [port2 as unknown as ArrayBuffer] };
      if (barrier !== undefined) {
        const warmed = await pool.runResult('warmUp', { ...input, barrier }, options);
        if (warmed.ok) return { ...warmed.value.answer, threadId: warmed.value.threadId };
        throw serverError(warmed.error.message);
      }
      const result = await pool.runResult('runCall', input, options);
      if (result.ok) return result.value;
      if (abort.signal.reason === SHUTTING_DOWN) throw serverError('the node is shutting down');
      if (abort.signal.aborted) throw serverError(`execution aborted (timeout = ${formatDuration(timeoutMs)})`);
      throw serverError(result.error.message);
    } finally {
      this.#inflight.delete(abort);
      if (killTimer !== undefined) clearTimeout(killTimer);
      port1.close();
    }
  }

  /** geth's DoCall: the message's outcome; used by GraphQL's `call`, which reports failures as data. */
  doCall(args: CallArgs, sel: BlockNumberOrHash): Promise<CallOutcome> {
    return this.#run('doCall', sel, () => args);
  }

  /** eth_call: the return data, or code 3 with the revert data, or the EVM's error. */
  async call(args: CallArgs, sel: BlockNumberOrHash): Promise<string> {
    return hex(await this.#run<Uint8Array>('call', sel, () => args));
  }

  /** eth_estimateGas: geth's binary search for the lowest gas limit that does not fail. */
  estimateGas(args: CallArgs, sel: BlockNumberOrHash): Promise<bigint> {
    return this.#run('estimateGas', sel, () => args);
  }

  /** eth_createAccessList: re-runs the message with the list it touched until the list stops changing. */
  createAccessList(args: CallArgs, sel: BlockNumberOrHash): Promise<AccessListResult> {
    return this.#run('createAccessList', sel, (scope, view) => this.#feeDefaults(view, args, scope.header));
  }

  /** geth's setFeeDefaults for eth_createAccessList: fill the fee fields a transaction would get. */
  #feeDefaults(view: ChainView, args: CallArgs, head: HeaderRef['header']): CallArgs {
    const out = { ...args };
    if (out.maxFeePerBlobGas !== undefined && out.maxFeePerBlobGas === 0n) {
      throw serverError('maxFeePerBlobGas, if specified, must be non-zero');
    }
    if (
      out.blobVersionedHashes !== undefined &&
      out.maxFeePerBlobGas === undefined &&
      head.excessBlobGas !== undefined
    ) {
      const params = blobParamsAt(this.backend.config, head.timestamp);
      const fee = params ? blobBaseFee(head.excessBlobGas, params) : 1n;
      out.maxFeePerBlobGas = fee * 2n;
    }
    if (out.gasPrice !== undefined && (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined)) {
      throw serverError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified');
    }
    if (out.gasPrice === undefined && out.maxFeePerGas !== undefined && out.maxPriorityFeePerGas !== undefined) {
      if (out.maxFeePerGas === 0n) throw serverError('maxFeePerGas must be non-zero');
      if (out.maxFeePerGas < out.maxPriorityFeePerGas) {
        throw serverError(
          `maxFeePerGas (0x${out.maxFeePerGas.toString(16)}) < maxPriorityFeePerGas (0x${out.maxPriorityFeePerGas.toString(16)})`,
        );
      }
      return out;
    }
    const london = head.baseFeePerGas !== undefined;
    if (out.gasPrice !== undefined) {
      if (out.gasPrice === 0n && london) throw serverError('gasPrice must be non-zero after london fork');
      return out;
    }
    if (london) {
      out.maxPriorityFeePerGas ??= this.backend.oracle.suggestTipCap(view);
      out.maxFeePerGas ??= out.maxPriorityFeePerGas + (head.baseFeePerGas ?? 0n) * 2n;
      if (out.maxFeePerGas < out.maxPriorityFeePerGas) {
        throw serverError(
          `maxFeePerGas (0x${out.maxFeePerGas.toString(16)}) < maxPriorityFeePerGas (0x${out.maxPriorityFeePerGas.toString(16)})`,
        );
      }
    } else {
      if (out.maxFeePerGas !== undefined || out.maxPriorityFeePerGas !== undefined) {
        throw serverError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active');
      }
      out.gasPrice = this.backend.oracle.suggestTipCap(view);
    }
    return out;
  }
}
