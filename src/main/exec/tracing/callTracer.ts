// geth's native callTracer: the tree of call frames of a transaction — type, from, to, gas, gasUsed, input, output,
// value, error and revertReason, nested calls, and with `withLog` the logs each frame emitted (with their position
// among its sub-calls; logs of frames that reverted are dropped). `onlyTopCall` keeps the top frame alone. The top
// frame reports the transaction's gas limit and the receipt's gas used, as geth's does.
import type { Address } from '@ethereumjs/util';
import { unpackRevert } from '../evm/call.js';
import type { BlockContext } from '../evm/context.js';
import type { TransactionLike, TxResult } from '../evm/interface.js';
import { TracerBase } from './base.js';
import type { EvmListeners, MessageEvent, MessageResultEvent, StepEvent } from './evmEvents.js';
import { hexBytes, hexQuantity, vmError, wordAddress } from './format.js';

export interface CallTracerConfig {
  onlyTopCall?: boolean | undefined;
  withLog?: boolean | undefined;
}

interface CallLog {
  address: string;
  topics: string[];
  data: string;
  position: number;
}

interface Frame {
  type: string;
  from: string;
  gas: bigint;
  gasUsed: bigint;
  to: string | undefined;
  input: Uint8Array;
  output: Uint8Array | undefined;
  error: string | undefined;
  revertReason: string | undefined;
  calls: Frame[];
  logs: CallLog[];
  value: bigint | undefined;
  reverted: boolean;
}

/** The JSON of a frame in the field order of geth's generated marshaller. */
export function frameJson(f: Frame): Record<string, unknown> {
  const out: Record<string, unknown> = {
    from: f.from,
    gas: hexQuantity(f.gas),
    gasUsed: hexQuantity(f.gasUsed),
  };
  if (f.to !== undefined) out.to = f.to;
  out.input = hexBytes(f.input);
  if (f.output !== undefined && f.output.length > 0) out.output = hexBytes(f.output);
  if (f.error !== undefined) out.error = f.error;
  if (f.revertReason !== undefined) out.revertReason = f.revertReason;
  if (f.calls.length > 0) out.calls = f.calls.map(frameJson);
  if (f.logs.length > 0) {
    out.logs = f.logs.map((l) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      position: hexQuantity(l.position),
    }));
  }
  if (f.value !== undefined) out.value = hexQuantity(f.value);
  out.type = f.type;
  return out;
}

const CALL_OPS: Readonly<Record<number, string>> = {
  240: 'CREATE',
  241: 'CALL',
  242: 'CALLCODE',
  244: 'DELEGATECALL',
  245: 'CREATE2',
  250: 'STATICCALL',
};
const SELFDESTRUCT = 0xff;
const LOG0 = 0xa0;
const LOG4 = 0xa4;
const addr = (a: Address): string => a.toString();

export class CallTracer extends TracerBase {
  readonly #cfg: CallTracerConfig;
  readonly #stack: Frame[] = [];
  #root: Frame | undefined;
  #gasLimit = 0n;
  /** The call opcode the current frame is about to run (names the next frame's type). */
  #pendingType: string | undefined;
  #balance: ((a: Address) => bigint) | undefined;
  /** Per open message: whether it has a frame (with onlyTopCall only the top one has). */
  readonly #open: boolean[] = [];

  constructor(cfg: CallTracerConfig = {}) {
    super();
    this.#cfg = cfg;
  }

  protected start(block: BlockContext, tx: TransactionLike): void {
    this.#gasLimit = tx.gasLimit;
    const state = block.executor.state;
    this.#balance = (a) => state.getBalance(a);
  }

  protected listeners(): EvmListeners {
    return {
      step: (e) => this.#step(e),
      beforeMessage: (m) => this.#enter(m),
      afterMessage: (r) => this.#exit(r),
    };
  }

  #step(e: StepEvent): void {
    this.check(256);
    const code = e.opcode.code;
    const type = CALL_OPS[code];
    if (type !== undefined) {
      this.#pendingType = type;
      return;
    }
    if (this.#cfg.onlyTopCall === true && e.depth > 0) return;
    const frame = this.#stack[this.#stack.length - 1];
    if (frame === undefined) return;
    const n = e.stack.length;
    if (code === SELFDESTRUCT && n >= 1 && this.#cfg.onlyTopCall !== true) {
      // geth reports a self-destruct as a frame of its own that moves the contract's balance.
      frame.calls.push({
        ...emptyFrame('SELFDESTRUCT', addr(e.address), 0n),
        to: wordAddress(e.stack[n - 1] as bigint),
        value: this.#balance?.(e.address) ?? 0n,
      });
    } else if (code >= LOG0 && code <= LOG4 && this.#cfg.withLog === true) {
      const topics = code - LOG0;
      if (n < 2 + topics) return;
      const offset = e.stack[n - 1] as bigint;
      const size = e.stack[n - 2] as bigint;
      const data = new Uint8Array(Number(size));
      // Memory the LOG itself expands reads as zeros.
      const start = Number(offset);
      if (start < e.memory.length) data.set(e.memory.subarray(start, Math.min(e.memory.length, start + data.length)));
      const list: string[] = [];
      for (let i = 0; i < topics; i++) list.push(`0x${(e.stack[n - 3 - i] as bigint).toString(16).padStart(64, '0')}`);
      const log = { address: addr(e.address), topics: list, data: hexBytes(data), position: frame.calls.length };
      this.charge(96 + log.data.length + 69 * topics);
      frame.logs.push(log);
    }
  }

  #enter(m: MessageEvent): void {
    this.check();
    const depth = m.depth;
    let type: string;
    if (depth === 0) type = m.to === undefined ? 'CREATE' : 'CALL';
    else type = this.#pendingType ?? inferType(m);
    this.#pendingType = undefined;
    const tracked = depth === 0 || this.#cfg.onlyTopCall !== true;
    this.#open.push(tracked);
    if (!tracked) return;
    const frame = emptyFrame(type, addr(m.caller), depth === 0 ? this.#gasLimit : m.gasLimit);
    frame.to = m.to === undefined ? undefined : addr(m.to);
    // CALLCODE and DELEGATECALL run the callee's code on the caller's account: geth names the code's account.
    if ((type === 'CALLCODE' || type === 'DELEGATECALL') && m._codeAddress !== undefined) {
      frame.to = addr(m._codeAddress);
    }
    frame.input = m.data;
    // A frame's JSON: its fixed fields, input and (at most) as much output again.
    this.charge(256 + 4 * m.data.length);
    // STATICCALL carries no value; DELEGATECALL inherits its caller's.
    frame.value = type === 'STATICCALL' ? undefined : m.value;
    if (depth === 0) this.#root = frame;
    this.#stack.push(frame);
  }

  #exit(r: MessageResultEvent): void {
    if (this.#open.pop() !== true) return;
    const frame = this.#stack.pop();
    if (frame === undefined) return;
    const res = r.execResult;
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
      if (r.createdAddress !== undefined) frame.to = addr(r.createdAddress);
    }
    frame.gasUsed = res.executionGasUsed;
    processOutput(frame, res.returnValue, res.exceptionError?.error);
    const parent = this.#stack[this.#stack.length - 1];
    if (parent !== undefined) parent.calls.push(frame);
  }

  protected end(result: TxResult | undefined): void {
    const root = this.#root;
    if (result === undefined || root === undefined) return;
    root.gasUsed = result.gasUsed;
    if (this.#cfg.withLog === true) clearFailedLogs(root, false);
  }

  result(): Record<string, unknown> {
    this.throwIfStopped();
    if (this.#root === undefined) throw new Error('incorrect number of top-level calls');
    return frameJson(this.#root);
  }
}

function emptyFrame(type: string, from: string, gas: bigint): Frame {
  return {
    type,
    from,
    gas,
    gasUsed: 0n,
    to: undefined,
    input: new Uint8Array(0),
    output: undefined,
    error: undefined,
    revertReason: undefined,
    calls: [],
    logs: [],
    value: undefined,
    reverted: false,
  };
}

/** Without a step listener's opcode: the message's own flags. */
function inferType(m: MessageEvent): string {
  if (m.to === undefined) return m.salt !== undefined ? 'CREATE2' : 'CREATE';
  if (m.delegatecall) return 'DELEGATECALL';
  if (m._codeAddress !== undefined) return 'CALLCODE';
  return m.isStatic ? 'STATICCALL' : 'CALL';
}

/** geth's callFrame.processOutput. */
function processOutput(f: Frame, output: Uint8Array, error: string | undefined): void {
  if (error === undefined) {
    f.output = output;
    return;
  }
  f.error = vmError(error);
  f.reverted = true;
  if (f.type === 'CREATE' || f.type === 'CREATE2') f.to = undefined;
  if (error !== 'revert' || output.length === 0) return;
  f.output = output;
  if (output.length < 4) return;
  const reason = unpackRevert(output);
  if (reason !== undefined) f.revertReason = reason;
}

function clearFailedLogs(f: Frame, parentFailed: boolean): void {
  const failed = f.reverted || parentFailed;
  if (failed) f.logs = [];
  for (const c of f.calls) clearFailedLogs(c, failed);
}
