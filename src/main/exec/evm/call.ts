// The call executor of eth_call, eth_estimateGas and eth_createAccessList (geth's DoCall, gasestimator.Estimate and
// AccessList): a message executed on the state after a block, through the same state transition and the same block
// environment as block import (./executor.ts: OP precompiles included), with the call relaxations geth applies — no
// nonce check (the sender's nonce is used), a gas pool of --rpc.gascap instead of the block's gas limit, and a zero
// base fee when the message pays no gas price. Nothing is persisted: the flat state overlay is dropped before the
// next call. One executor serves the calls one after another (exclusive). Choosing the block and answering in JSON
// is ../rpc/call.ts.
import { Address } from '@ethereumjs/util';
import { formatDuration } from '../../common/duration.js';
import { TernError } from '../../common/errors.js';
import { keccak256 } from '../../native/keccak.js';
import type { Header } from '../../primitives/block/header.js';
import { fromHex, toHex as hex } from '../../primitives/bytes.js';
import { type ChainConfig, hardforkAt } from '../../primitives/chainConfig.js';
import { createAddress } from '../../primitives/receipt/json.js';
import { bigintToBytes, rlpEncode } from '../../primitives/rlp.js';
import {
  authorizationSigningPayload,
  nonceCanIncrease,
  readAuthorization,
} from '../../primitives/tx/7702/authorization.js';
import { executionReverted, type RpcError, serverError } from '../../protocol/jsonrpc/errors.js';
import type { StateReader } from '../state/interface.js';
import { type CallArgs, type CallMessage, callDefaults, messageTransaction, toMessage } from './callMessage.js';
import type { BlockEnv } from './env.js';
import { blockEnv, createExecutor } from './executor.js';
import type { AccessListItemBytes, TxResult } from './interface.js';
import { intrinsicGas } from './intrinsic.js';
import { recoverAddress } from './recover.js';
import { applyTransaction, type Executor } from './transition.js';

/** The block a call runs in: its header, the state after it, and the chain's block hashes (BLOCKHASH). */
export interface CallScope {
  readonly header: Header;
  readonly reader: StateReader;
  readonly getBlockHash: (number: bigint) => Uint8Array | undefined;
}

/** The call limits, read at every call (--rpc.gascap, --rpc.evmtimeout). */
export interface CallLimits {
  readonly gasCap: bigint;
  readonly evmTimeoutMs: number;
}

const EMPTY_READER: StateReader = {
  getAccount: () => undefined,
  getStorage: () => 0n,
  getCode: () => new Uint8Array(0),
};

const MAX_UINT64 = (1n << 64n) - 1n;
const TX_GAS = 21_000n;
const CALL_STIPEND = 2_300n;
const CALL_NEW_ACCOUNT_GAS = 25_000n;
/** geth's estimateGasErrorRatio: stop the binary search within 1.5% of the answer. */
const ESTIMATE_ERROR_RATIO = 0.015;
/** params.MaxTxGas (EIP-7825), the per-transaction cap from Osaka on. */
const MAX_TX_GAS = 1n << 24n;

/** ethereumjs EVM errors as geth words them (core/vm/errors.go). */
const VM_ERRORS: Readonly<Record<string, string>> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  revert: 'execution reverted',
  'invalid JUMP': 'invalid jump destination',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'value overflow': 'gas uint64 overflow',
  'return data out of bounds': 'return data out of bounds',
};

export function vmErrorMessage(error: string): string {
  return VM_ERRORS[error] ?? error;
}

const PANIC_REASONS: Readonly<Record<number, string>> = {
  0: 'generic panic',
  1: 'assert(false)',
  17: 'arithmetic underflow or overflow',
  18: 'division or modulo by zero',
  33: 'enum overflow',
  34: 'invalid encoded storage byte array accessed',
  49: 'out-of-bounds array access; popping on an empty array',
  50: 'out-of-bounds access of an array or bytesN',
  65: 'out of memory',
  81: 'uninitialized function',
};

/** abi.UnpackRevert: the reason of an Error(string) or Panic(uint256) revert, undefined for anything else. */
export function unpackRevert(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined;
  const selector = Buffer.from(data.subarray(0, 4)).toString('hex');
  const body = data.subarray(4);
  const word = (at: number): bigint | undefined =>
    at + 32 <= body.length ? BigInt(`0x${Buffer.from(body.subarray(at, at + 32)).toString('hex')}`) : undefined;
  if (selector === '08c379a0') {
    const offset = word(0);
    if (offset === undefined || offset > BigInt(body.length)) return undefined;
    const len = word(Number(offset));
    if (len === undefined) return undefined;
    const start = Number(offset) + 32;
    if (BigInt(start) + len > BigInt(body.length)) return undefined;
    return Buffer.from(body.subarray(start, start + Number(len))).toString('utf8');
  }
  if (selector === '4e487b71') {
    const code = word(0);
    if (code === undefined) return undefined;
    return PANIC_REASONS[Number(code)] !== undefined && code < 256n
      ? PANIC_REASONS[Number(code)]
      : `unknown panic code: 0x${code.toString(16)}`;
  }
  return undefined;
}

/** geth's newRevertError: code 3, the decoded reason when there is one, the revert data as `data`. */
export function revertError(data: Uint8Array): RpcError {
  return executionReverted(hex(data), unpackRevert(data));
}

/** An opcode step as the access-list tracer reads it. */
interface StepEvent {
  opcode: { code: number };
  stack: bigint[];
  address: Address;
}

interface ExecOptions {
  /** Gas available to the message (the call's gas pool). */
  pool: bigint;
  /** performance.now() past which execution is aborted (--rpc.evmtimeout). */
  deadline?: number | undefined;
  onStep?: ((e: StepEvent) => void) | undefined;
}

type ExecOutcome =
  | { ok: true; result: TxResult; maxUsedGas: bigint }
  /** The message is invalid (geth's consensus errors: nonce, funds, intrinsic gas...). */
  | { ok: false; code: string; message: string };

class EvmTimeout extends TernError {
  constructor() {
    super('RPC_EVM_TIMEOUT', 'execution timed out');
  }
}

const word20 = (n: bigint): string => `0x${(n & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;
const word32 = (n: bigint): string => `0x${n.toString(16).padStart(64, '0')}`;

/** The access list a tracer builds: addresses in first-seen order, each with its set of slots. */
class AccessListBuilder {
  readonly list = new Map<string, Set<string>>();

  constructor(
    initial: readonly AccessListItemBytes[],
    private readonly exclude: ReadonlySet<string>,
  ) {
    for (const [address, keys] of initial) {
      const a = hex(address);
      if (!exclude.has(a)) this.addAddress(a);
      for (const k of keys) this.addSlot(a, hex(k));
    }
  }

  addAddress(a: string): void {
    if (!this.list.has(a)) this.list.set(a, new Set());
  }

  addSlot(a: string, slot: string): void {
    this.addAddress(a);
    this.list.get(a)?.add(slot);
  }

  /** geth's AccessListTracer.OnOpcode. */
  onStep(e: StepEvent): void {
    const stack = e.stack;
    const n = stack.length;
    const op = e.opcode.code;
    if ((op === 0x54 || op === 0x55) && n >= 1) {
      this.addSlot(e.address.toString().toLowerCase(), word32(stack[n - 1] as bigint));
    } else if ((op === 0x3c || op === 0x3f || op === 0x3b || op === 0x31 || op === 0xff) && n >= 1) {
      const a = word20(stack[n - 1] as bigint);
      if (!this.exclude.has(a)) this.addAddress(a);
    } else if ((op === 0xf4 || op === 0xf1 || op === 0xfa || op === 0xf2) && n >= 5) {
      const a = word20(stack[n - 2] as bigint);
      if (!this.exclude.has(a)) this.addAddress(a);
    }
  }

  equal(other: AccessListBuilder): boolean {
    if (this.list.size !== other.list.size) return false;
    for (const [a, slots] of this.list) {
      const o = other.list.get(a);
      if (!o || o.size !== slots.size) return false;
      for (const s of slots) if (!o.has(s)) return false;
    }
    return true;
  }

  /** The list sorted by address, each address's slots sorted (geth leaves map order; sorting makes it stable). */
  toBytes(): AccessListItemBytes[] {
    return [...this.list.keys()].sort().map((a) => {
      const slots = [...(this.list.get(a) ?? [])].sort();
      return [fromHex(a), slots.map(fromHex)] as const;
    });
  }
}

/** What a call message did: its return data, the gas it used (after refunds) and its EVM error if it failed. */
export interface CallOutcome {
  returnData: Uint8Array;
  gasUsed: bigint;
  /** The EVM's error (`revert`, `out of gas`...); undefined on success. */
  error: string | undefined;
}

export interface AccessListResult {
  accessList: Array<{ address: string; storageKeys: string[] }>;
  gasUsed: bigint;
  error?: string | undefined;
}

/** Runs call messages on one lazily created executor, one message at a time. */
export class CallExecutor {
  #executor: Promise<Executor> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** executionGasUsed of the last finished message frame: the outermost one once a message is done. */
  #lastFrameGas = 0n;
  #deadline: number | undefined;

  constructor(
    private readonly config: ChainConfig,
    private readonly limits: CallLimits,
  ) {}

  /** Runs `fn` once the calls before it are done: call, estimateGas and createAccessList run inside it. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #getExecutor(): Promise<Executor> {
    this.#executor ??= (async () => {
      const executor = await createExecutor(this.config, EMPTY_READER);
      // Listeners with one parameter are called synchronously, in the EVM's own call stack: a throw aborts the run.
      const events = executor.evm.events;
      events.on('beforeMessage', (_m) => {
        if (this.#deadline !== undefined && performance.now() > this.#deadline) throw new EvmTimeout();
      });
      events.on('afterMessage', (r) => {
        this.#lastFrameGas = r.execResult.executionGasUsed;
      });
      return executor;
    })();
    return this.#executor;
  }

  /** The block's environment with the call's fee relaxations (geth's NoBaseFee). */
  #env(executor: Executor, scope: CallScope, msg: CallMessage): BlockEnv {
    return blockEnv(this.config, executor.common, scope.header, scope.getBlockHash, {
      noBaseFee: msg.gasPrice === 0n,
      noBlobBaseFee: msg.blobFeeCap === 0n,
    });
  }

  /** Executes `msg` on the scope's state within the rules of the scope's header. */
  async #execute(executor: Executor, scope: CallScope, msg: CallMessage, opts: ExecOptions): Promise<ExecOutcome> {
    const reader = scope.reader;
    executor.state.reset(reader);
    const env = this.#env(executor, scope, msg);
    const sender = new Address(msg.from);
    const tx = messageTransaction(msg, executor.state.getNonce(sender));
    const ctx = executor.startBlock(env);
    // The call's gas pool replaces the block's remaining gas.
    ctx.gasUsed = env.gasLimit - opts.pool;
    this.#lastFrameGas = 0n;
    this.#deadline = opts.deadline;
    // A step listener makes the interpreter copy its stack and memory at every opcode: attached only for tracing.
    const onStep = opts.onStep;
    const stepListener = onStep && ((e: StepEvent) => onStep(e));
    if (stepListener) executor.evm.events.on('step', stepListener);
    try {
      const result = await applyTransaction(ctx, tx, sender);
      const intrinsic = intrinsicGas(
        {
          data: msg.data,
          isCreate: msg.to === undefined,
          accessList: tx.type === 0 ? undefined : tx.accessList,
          authorizationCount: msg.authorizations?.length ?? 0,
        },
        env.rules,
      );
      // Gas used before refunds; never below what the receipt would say.
      let maxUsedGas = intrinsic + this.#lastFrameGas;
      if (maxUsedGas < result.gasUsed) maxUsedGas = result.gasUsed;
      return { ok: true, result, maxUsedGas };
    } catch (err) {
      if (err instanceof EvmTimeout) throw err;
      if (err instanceof TernError && (err.code.startsWith('TR_') || err.code === 'SenderNotEOA')) {
        return { ok: false, code: err.code, message: err.message };
      }
      throw err;
    } finally {
      this.#deadline = undefined;
      if (stepListener) executor.evm.events.off('step', stepListener);
      executor.state.reset(reader);
    }
  }

  /**
   * geth's DoCall, run inside exclusive(): the message's outcome (return data, gas used after refunds, the EVM error
   * if it failed). An invalid message or the --rpc.evmtimeout deadline is an error; a failed execution an outcome.
   */
  async doCall(scope: CallScope, args: CallArgs): Promise<CallOutcome> {
    const { gasCap, evmTimeoutMs } = this.limits;
    const executor = await this.#getExecutor();
    const h = scope.header;
    const filled = callDefaults(args, gasCap, h.baseFeePerGas, this.config.chainId);
    const msg = toMessage(filled, h.baseFeePerGas);
    const started = performance.now();
    const deadline = evmTimeoutMs > 0 ? started + evmTimeoutMs : undefined;
    let out: ExecOutcome;
    try {
      out = await this.#execute(executor, scope, msg, { pool: gasCap === 0n ? MAX_UINT64 : gasCap, deadline });
    } catch (err) {
      if (err instanceof EvmTimeout) throw timeoutError(evmTimeoutMs);
      throw err;
    }
    if (deadline !== undefined && performance.now() > deadline) throw timeoutError(evmTimeoutMs);
    if (!out.ok) throw serverError(`err: ${out.message} (supplied gas ${msg.gasLimit})`);
    const r = out.result;
    return { returnData: r.returnValue, gasUsed: r.gasUsed, error: r.error };
  }

  /** eth_call: the return data, or code 3 with the revert data, or the EVM's error. Run inside exclusive(). */
  async call(scope: CallScope, args: CallArgs): Promise<Uint8Array> {
    const r = await this.doCall(scope, args);
    if (r.error === 'revert') throw revertError(r.returnData);
    if (r.error !== undefined) throw serverError(vmErrorMessage(r.error));
    return r.returnData;
  }

  /** eth_estimateGas: geth's binary search for the lowest gas limit that does not fail. */
  async estimateGas(scope: CallScope, args: CallArgs): Promise<bigint> {
    const { config } = this;
    const { gasCap } = this.limits;
    const executor = await this.#getExecutor();
    const { header: h, reader } = scope;
    const filled = callDefaults({ ...args, gas: args.gas ?? 0n }, gasCap, h.baseFeePerGas, config.chainId);
    const msg = toMessage(filled, h.baseFeePerGas);
    const run = async (gas: bigint): Promise<{ failed: boolean; outcome?: ExecOutcome & { ok: true } }> => {
      const out = await this.#execute(executor, scope, { ...msg, gasLimit: gas }, { pool: MAX_UINT64 });
      if (!out.ok) {
        if (out.code === 'TR_IntrinsicGas' || out.code === 'TR_GasLimitTooHigh') return { failed: true };
        throw serverError(`failed with ${gas} gas: ${out.message}`);
      }
      return { failed: out.result.status === 0, outcome: out };
    };

    let hi = msg.gasLimit >= TX_GAS ? msg.gasLimit : h.gasLimit;
    const rules = executor.common;
    const osaka = rules.hardforkGteHardfork(hardforkAt(config, h.number, h.timestamp), 'osaka');
    if (hi > MAX_TX_GAS && osaka) hi = MAX_TX_GAS;
    const feeCap = msg.feeCap;
    if (feeCap !== 0n) {
      let available = reader.getAccount(msg.from)?.balance ?? 0n;
      if (msg.value >= available) throw serverError('insufficient funds for transfer');
      available -= msg.value;
      if (msg.blobHashes !== undefined && msg.blobHashes.length > 0 && h.excessBlobGas !== undefined) {
        const blobUsage = BigInt(msg.blobHashes.length) * 131_072n * (msg.blobFeeCap ?? 0n);
        if (blobUsage >= available) throw serverError('insufficient funds for gas * price + value');
        available -= blobUsage;
      }
      const allowance = available / feeCap;
      if (allowance <= MAX_UINT64 && hi > allowance) hi = allowance;
    }
    if (gasCap !== 0n && hi > gasCap) hi = gasCap;

    if (msg.data.length === 0 && msg.to !== undefined) {
      const account = reader.getAccount(msg.to);
      const codeSize = account ? reader.getCode(account.codeHash).length : 0;
      if (codeSize === 0) {
        try {
          const simple = await run(TX_GAS);
          if (!simple.failed) return TX_GAS;
        } catch {
          // fall through to the full search, as geth does
        }
      }
    }
    const first = await run(hi);
    if (first.failed) {
      const r = first.outcome?.result;
      if (r !== undefined && r.error !== 'out of gas') {
        if (r.error === 'revert') throw revertError(r.returnValue);
        throw serverError(vmErrorMessage(r.error ?? 'execution failed'));
      }
      throw serverError(`gas required exceeds allowance (${hi})`);
    }
    const firstOutcome = first.outcome as ExecOutcome & { ok: true };
    let lo = firstOutcome.result.gasUsed - 1n;
    const optimistic = ((firstOutcome.maxUsedGas + CALL_STIPEND) * 64n) / 63n;
    if (optimistic < hi) {
      if ((await run(optimistic)).failed) lo = optimistic;
      else hi = optimistic;
    }
    while (lo + 1n < hi) {
      if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break;
      let mid = lo + (hi - lo) / 2n;
      if (mid > lo * 2n) mid = lo * 2n;
      if ((await run(mid)).failed) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /**
   * eth_createAccessList: re-runs the message with the list it touched until the list stops changing. `withFees`:
   * the arguments with the fee fields a transaction would get (../rpc/call.ts). Run inside exclusive().
   */
  async createAccessList(scope: CallScope, withFees: CallArgs): Promise<AccessListResult> {
    const { config } = this;
    const { gasCap } = this.limits;
    const executor = await this.#getExecutor();
    const { header: h, reader } = scope;
    const from = withFees.from ?? new Uint8Array(20);
    const nonce = withFees.nonce ?? reader.getAccount(from)?.nonce ?? 0n;
    const filled = callDefaults({ ...withFees, nonce }, gasCap, h.baseFeePerGas, config.chainId);
    const to = filled.to ?? createAddress(from, nonce);

    // The sender, the recipient, the precompiles and the authorities are warm anyway: left out of the list.
    const exclude = new Set<string>([hex(from), hex(to)]);
    executor.startBlock(this.#env(executor, scope, toMessage(filled, h.baseFeePerGas)));
    for (const p of executor.warmPrecompiles()) exclude.add(`0x${p.padStart(40, '0')}`);
    const auths = filled.authorizationList ?? [];
    if (BigInt(auths.length) > (filled.gas ?? 0n) / CALL_NEW_ACCOUNT_GAS) {
      throw serverError('insufficient gas to process all authorizations');
    }
    for (const item of auths) {
      const auth = readAuthorization(item);
      if ((auth.chainId !== 0n && auth.chainId !== config.chainId) || !nonceCanIncrease(auth.nonce)) continue;
      const authority = recoverAddress(
        keccak256(authorizationSigningPayload(auth)),
        auth.r,
        auth.s,
        Number(auth.yParity),
      );
      if (authority) exclude.add(hex(authority));
    }

    let prev = new AccessListBuilder(filled.accessList ?? [], exclude);
    for (;;) {
      const accessList = prev.toBytes();
      const msg = toMessage({ ...filled, accessList }, h.baseFeePerGas);
      const tracer = new AccessListBuilder(accessList, exclude);
      const out = await this.#execute(executor, scope, msg, {
        pool: msg.gasLimit,
        onStep: (e) => tracer.onStep(e),
      });
      if (!out.ok) {
        throw serverError(`failed to apply transaction: ${hex(unsignedHash(filled, accessList))} err: ${out.message}`);
      }
      if (tracer.equal(prev)) {
        const r = out.result;
        return {
          accessList: accessList.map(([a, keys]) => ({ address: hex(a), storageKeys: keys.map(hex) })),
          gasUsed: r.gasUsed,
          ...(r.error !== undefined ? { error: vmErrorMessage(r.error) } : {}),
        };
      }
      prev = tracer;
    }
  }
}

function timeoutError(ms: number): RpcError {
  return serverError(`execution aborted (timeout = ${formatDuration(ms)})`);
}

/** The hash of the unsigned transaction geth names in createAccessList's failure message. */
function unsignedHash(args: CallArgs, accessList: readonly AccessListItemBytes[]): Uint8Array {
  const n = (v: bigint | undefined) => bigintToBytes(v ?? 0n);
  const to = args.to ?? new Uint8Array(0);
  const data = args.input ?? new Uint8Array(0);
  if (args.maxFeePerGas !== undefined) {
    const body = rlpEncode([
      n(args.chainId),
      n(args.nonce),
      n(args.maxPriorityFeePerGas),
      n(args.maxFeePerGas),
      n(args.gas),
      to,
      n(args.value),
      data,
      accessList.map(([a, keys]) => [a, [...keys]]),
      new Uint8Array(0),
      new Uint8Array(0),
      new Uint8Array(0),
    ]);
    const out = new Uint8Array(body.length + 1);
    out[0] = 2;
    out.set(body, 1);
    return keccak256(out);
  }
  return keccak256(
    rlpEncode([
      n(args.nonce),
      n(args.gasPrice),
      n(args.gas),
      to,
      n(args.value),
      data,
      new Uint8Array(0),
      new Uint8Array(0),
      new Uint8Array(0),
    ]),
  );
}
