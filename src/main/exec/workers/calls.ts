// Call-worker task module: eth_call, eth_estimateGas, eth_createAccessList (and GraphQL's call) run here, off the
// coordinator, on the pinned block's state read from this thread's own LMDB snapshot (./snapshotScope.ts), or on
// the state the coordinator serves over the task's MessagePort where only it can see the state
// (../evm/remoteScope.ts). The port also tells the coordinator when the call starts (its hard deadline).
// Each thread keeps one CallExecutor (its EVM set up once) and runs one call at a time; the pool runs several.

import { threadId } from 'node:worker_threads';
import { fail, ok, type TaskResult } from '../../../workers/task.js';
import type { ChainConfig } from '../../primitives/chainConfig.js';
import { isRpcErrorLike, type RpcErrorObject } from '../../protocol/jsonrpc/errors.js';
import { CallExecutor, type CallLimits, type CallScope } from '../evm/call.js';
import type { CallArgs } from '../evm/callMessage.js';
import { createExecutor } from '../evm/executor.js';
import { announceStart, type RemoteScopeHandle, remoteScope, type SnapshotPin } from '../evm/remoteScope.js';
import type { Executor } from '../evm/transition.js';
import type { TraceConfig } from '../tracing/config.js';
import { traceCallOnScope } from '../tracing/runner.js';
import { buildPendingHere, type PendingBuildInput, type PendingBuilt } from './pendingBuild.js';
import { snapshotScope } from './snapshotScope.js';

export type CallOp = 'doCall' | 'call' | 'estimateGas' | 'createAccessList' | 'traceCall';

export interface RunCallInput extends RemoteScopeHandle {
  readonly op: CallOp;
  readonly config: ChainConfig;
  readonly limits: CallLimits;
  readonly args: CallArgs;
  /** debug_traceCall's trace config (op traceCall). */
  readonly trace?: TraceConfig | undefined;
  /** The block to read from this thread's own snapshot; absent, the coordinator answers the reads over the port. */
  readonly pin?: SnapshotPin | undefined;
}

/** The executor's answer, or the JSON-RPC error it raised (an RpcError does not survive the thread hop as a class). */
export type RunCallOutput = { value: unknown } | { rpcError: RpcErrorObject };

const EMPTY_READER = { getAccount: () => undefined, getStorage: () => 0n, getCode: () => new Uint8Array(0) };
const limits: { gasCap: bigint; evmTimeoutMs: number } = { gasCap: 0n, evmTimeoutMs: 0 };
const executors = new Map<bigint, CallExecutor>();
const traceExecutors = new Map<bigint, Promise<Executor>>();

function traceExecutor(config: ChainConfig): Promise<Executor> {
  let executor = traceExecutors.get(config.chainId);
  if (executor === undefined) {
    executor = createExecutor(config, EMPTY_READER);
    traceExecutors.set(config.chainId, executor);
  }
  return executor;
}

export async function runCall(input: RunCallInput): Promise<TaskResult<RunCallOutput>> {
  let release: (() => void) | undefined;
  try {
    announceStart(input);
    limits.gasCap = input.limits.gasCap;
    limits.evmTimeoutMs = input.limits.evmTimeoutMs;
    let executor = executors.get(input.config.chainId);
    if (executor === undefined) {
      executor = new CallExecutor(input.config, limits);
      executors.set(input.config.chainId, executor);
    }
    let scope: CallScope;
    if (input.pin === undefined) scope = remoteScope(input);
    else {
      const local = snapshotScope(input.pin, input.header, input.config);
      scope = local.scope;
      release = local.release;
    }
    if (input.op === 'traceCall') {
      const trace = input.trace;
      if (trace === undefined) return fail(new Error('traceCall without a trace config'));
      const tracing = await traceExecutor(input.config);
      return ok({ value: await traceCallOnScope(tracing, input.config, limits.gasCap, scope, input.args, trace) });
    }
    const ex = executor;
    const value = await ex.exclusive<unknown>(() => {
      switch (input.op) {
        case 'doCall':
          return ex.doCall(scope, input.args);
        case 'call':
          return ex.call(scope, input.args);
        case 'estimateGas':
          return ex.estimateGas(scope, input.args);
        case 'createAccessList':
          return ex.createAccessList(scope, input.args);
        case 'traceCall':
          throw new Error('unreachable');
      }
    });
    return ok({ value });
  } catch (err) {
    if (isRpcErrorLike(err)) {
      const e = err as RpcErrorObject;
      return ok({
        rpcError:
          e.data === undefined
            ? { code: e.code, message: e.message }
            : { code: e.code, message: e.message, data: e.data },
      });
    }
    return fail(err);
  } finally {
    release?.();
    input.port.close();
  }
}

/** The warm-up's input: a small call, and the barrier its tasks meet at: [arrived, parties]. */
export interface WarmUpInput extends RunCallInput {
  readonly barrier: Int32Array;
}

type WaitAsync = (
  cells: Int32Array,
  index: number,
  value: number,
  timeoutMs: number,
) => { async: false; value: string } | { async: true; value: Promise<string> };

/** How long a warmed thread waits for the others: a thread that is slower to start is then warmed by its first call. */
const WARM_BARRIER_MS = 5000;

/**
 * Warms this thread at node start: a first call sets up the executor, opens the LMDB environment and compiles the
 * interpreter's hot paths, costs the first user's call would otherwise pay. The task then waits until every
 * thread's warm-up has arrived, so that no thread takes a second one: one task per thread.
 */
export async function warmUp(input: WarmUpInput): Promise<TaskResult<{ threadId: number; answer: RunCallOutput }>> {
  const answered = await runCall(input);
  if (!answered.ok) return answered;
  const barrier = input.barrier;
  Atomics.add(barrier, 0, 1);
  Atomics.notify(barrier, 0);
  const deadline = performance.now() + WARM_BARRIER_MS;
  for (;;) {
    const arrived = Atomics.load(barrier, 0);
    const left = deadline - performance.now();
    if (arrived >= Atomics.load(barrier, 1) || left <= 0) break;
    // Atomics.waitAsync (Node ≥ 16) is newer than the TypeScript lib this project targets.
    const waited = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(barrier, 0, arrived, left);
    if (waited.async) await waited.value;
  }
  return ok({ threadId, answer: answered.value });
}

/** --rollup.computependingblock's build (./pendingBuild.ts): off the coordinator, on this thread's snapshot. */
export async function buildPending(input: PendingBuildInput): Promise<TaskResult<PendingBuilt>> {
  try {
    return ok(await buildPendingHere(input));
  } catch (err) {
    return fail(err);
  }
}
