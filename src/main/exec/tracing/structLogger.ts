// geth's struct (opcode) logger, the default tracer of debug_traceTransaction/traceCall/traceBlock*: one entry per
// executed opcode with pc, op, remaining gas, the opcode's cost (for calls: with the gas handed to the callee),
// depth from 1, and as configured the stack, memory (32-byte rows), return data of the last call, the storage
// slots this contract read or wrote so far, and the refund counter. The result is
// {gas: receipt gas, failed, returnValue, structLogs}.
import type { BlockContext } from '../evm/context.js';
import type { TxResult } from '../evm/interface.js';
import { TracerBase } from './base.js';
import type { EvmListeners, MessageResultEvent, StepEvent } from './evmEvents.js';
import { hexBytes, opName, plainHex, vmError, word64, wordBytes } from './format.js';

/** logger.Config as the trace config carries it. */
export interface StructLoggerConfig {
  enableMemory?: boolean | undefined;
  disableStack?: boolean | undefined;
  disableStorage?: boolean | undefined;
  enableReturnData?: boolean | undefined;
  /** Most entries to record; 0 for all. */
  limit?: number | undefined;
}

interface Entry {
  pc: number;
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
  error?: string;
  stack?: string[];
  returnData?: string;
  memory?: string[];
  storage?: Record<string, string>;
  refund: number;
}

/** The JSON of one entry in geth's field order, empty fields left out as geth's omitempty does. */
function entryJson(e: Entry): Record<string, unknown> {
  const out: Record<string, unknown> = { pc: e.pc, op: e.op, gas: e.gas, gasCost: e.gasCost, depth: e.depth };
  if (e.error !== undefined) out.error = e.error;
  if (e.stack !== undefined) out.stack = e.stack;
  if (e.returnData !== undefined) out.returnData = e.returnData;
  if (e.memory !== undefined) out.memory = e.memory;
  if (e.storage !== undefined) out.storage = e.storage;
  if (e.refund !== 0) out.refund = e.refund;
  return out;
}

/** An open call frame: its latest entry and opcode, its gas, the return data of its latest call. */
interface OpenFrame {
  last: number;
  returnData: Uint8Array;
  gasLimit: bigint;
  lastCode: number;
}

/** Opcodes after which a frame has ended (STOP, RETURN, REVERT, INVALID, SELFDESTRUCT). */
const HALTS = new Set([0x00, 0xf3, 0xfd, 0xfe, 0xff]);

/** Opcodes that only pop: how many. */
const POPS_ONLY: Readonly<Record<number, number>> = {
  80: 1, // POP
  82: 2, // MSTORE
  83: 2, // MSTORE8
  85: 2, // SSTORE
  91: 0, // JUMPDEST
  93: 2, // TSTORE
  94: 3, // MCOPY
  55: 3, // CALLDATACOPY
  57: 3, // CODECOPY
  60: 4, // EXTCODECOPY
  62: 3, // RETURNDATACOPY
  160: 2, // LOG0
  161: 3,
  162: 4,
  163: 5,
  164: 6,
};

/** CALL, CALLCODE, DELEGATECALL, STATICCALL. */
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa]);
const CALL_STIPEND = 2300n;

const SLOAD = 0x54;
const SSTORE = 0x55;
const EMPTY = new Uint8Array(0);

export class StructLogger extends TracerBase {
  readonly #cfg: StructLoggerConfig;
  readonly #logs: Entry[] = [];
  /** Per contract, the slots read or written so far (64-hex key → 64-hex value). */
  readonly #storage = new Map<string, Record<string, string>>();
  readonly #frames: OpenFrame[] = [];
  /** The entry of a CALL-family opcode whose callee has not started yet (-1 for none). */
  #pendingCall = -1;
  #readStorage: ((address: Uint8Array, slot: Uint8Array) => bigint) | undefined;
  #gas = 0n;
  #failed = false;
  #output: Uint8Array = EMPTY;

  constructor(cfg: StructLoggerConfig = {}) {
    super();
    this.#cfg = cfg;
  }

  protected start(block: BlockContext): void {
    const state = block.executor.state;
    this.#readStorage = (a, s) => state.getStorageValue(a, s);
  }

  protected listeners(): EvmListeners {
    return {
      step: (e) => this.#step(e),
      beforeMessage: (m) => {
        this.check();
        this.#addCallGas(m.gasLimit, m.value);
        this.#frames.push({ last: -1, returnData: EMPTY, gasLimit: m.gasLimit, lastCode: 0 });
      },
      afterMessage: (r) => this.#exit(r),
    };
  }

  #step(e: StepEvent): void {
    this.check(256);
    const limit = this.#cfg.limit ?? 0;
    if (limit > 0 && this.#logs.length >= limit) return;
    const frame = this.#frames[this.#frames.length - 1];
    const code = e.opcode.code;
    const entry: Entry = {
      pc: e.pc,
      op: opName(code, e.opcode.name),
      gas: Number(e.gasLeft),
      gasCost: Number(e.opcode.dynamicFee),
      depth: e.depth + 1,
      refund: Number(e.gasRefund),
    };
    if (this.#cfg.disableStack !== true) entry.stack = e.stack.map((v) => `0x${v.toString(16)}`);
    if (this.#cfg.enableReturnData === true && frame !== undefined && frame.returnData.length > 0) {
      entry.returnData = hexBytes(frame.returnData);
    }
    if (this.#cfg.enableMemory === true && e.memory.length > 0) {
      const rows: string[] = [];
      for (let i = 0; i + 32 <= e.memory.length; i += 32) rows.push(plainHex(e.memory.subarray(i, i + 32)));
      entry.memory = rows;
    }
    const n = e.stack.length;
    if (this.#cfg.disableStorage !== true && (code === SLOAD || code === SSTORE)) {
      const address = e.address.toString();
      let slots = this.#storage.get(address);
      if (slots === undefined) {
        slots = {};
        this.#storage.set(address, slots);
      }
      if (code === SLOAD && n >= 1) {
        const key = e.stack[n - 1] as bigint;
        const value = this.#readStorage?.(e.address.bytes, wordBytes(key)) ?? 0n;
        slots[word64(key)] = word64(value);
        entry.storage = { ...slots };
      } else if (code === SSTORE && n >= 2) {
        slots[word64(e.stack[n - 1] as bigint)] = word64(e.stack[n - 2] as bigint);
        entry.storage = { ...slots };
      }
    }
    this.charge(entrySize(entry));
    this.#pendingCall = CALLS.has(code) ? this.#logs.length : -1;
    if (frame !== undefined) {
      frame.last = this.#logs.length;
      frame.lastCode = code;
    }
    this.#logs.push(entry);
  }

  /**
   * geth's cost of a CALL-family opcode includes the gas handed to the callee (without the value stipend);
   * ethereumjs charges that gas only when the callee returns, so it is added once the callee's frame starts.
   */
  #addCallGas(gasLimit: bigint, value: bigint): void {
    const entry = this.#logs[this.#pendingCall];
    this.#pendingCall = -1;
    if (entry === undefined) return;
    const stipend = value > 0n && (entry.op === 'CALL' || entry.op === 'CALLCODE') ? CALL_STIPEND : 0n;
    entry.gasCost += Number(gasLimit - stipend);
  }

  #exit(r: MessageResultEvent): void {
    this.#pendingCall = -1;
    const frame = this.#frames.pop();
    const err = r.execResult.exceptionError?.error;
    // geth logs the failing opcode with its error when the failure came before the opcode ran (gas, stack).
    if (frame !== undefined && frame.last >= 0 && err !== undefined && isPreExecutionError(err)) {
      const entry = this.#logs[frame.last];
      if (entry !== undefined) entry.error = vmError(err);
    }
    if (frame !== undefined && err === undefined) this.#implicitStop(frame, r.execResult.executionGasUsed);
    const parent = this.#frames[this.#frames.length - 1];
    if (parent !== undefined) {
      // A call's output becomes the caller's return data; a creation leaves it only when it reverted.
      const created = r.createdAddress !== undefined;
      parent.returnData = created && err !== 'revert' ? EMPTY : r.execResult.returnValue;
    }
  }

  /**
   * Code that runs off its end stops there: geth's interpreter reads a STOP past the code and logs it, ethereumjs
   * just leaves the loop. The entry is rebuilt from the frame's last opcode: pc after it, the gas left, and the
   * stack that opcode leaves (exact for the opcodes that push nothing, which is how such code usually ends).
   */
  #implicitStop(frame: OpenFrame, gasUsed: bigint): void {
    const last = this.#logs[frame.last];
    if (last === undefined || HALTS.has(frame.lastCode)) return;
    const limit = this.#cfg.limit ?? 0;
    if (limit > 0 && this.#logs.length >= limit) return;
    const push = frame.lastCode >= 0x60 && frame.lastCode <= 0x7f ? frame.lastCode - 0x5f : 0;
    const entry: Entry = {
      pc: last.pc + 1 + push,
      op: 'STOP',
      gas: Number(frame.gasLimit - gasUsed),
      gasCost: 0,
      depth: last.depth,
      refund: last.refund,
    };
    if (last.stack !== undefined) {
      const popped = POPS_ONLY[frame.lastCode];
      entry.stack = popped === undefined ? last.stack : last.stack.slice(0, last.stack.length - popped);
    }
    if (last.returnData !== undefined) entry.returnData = last.returnData;
    if (last.memory !== undefined) entry.memory = last.memory;
    this.#logs.push(entry);
  }

  protected end(result: TxResult | undefined): void {
    if (result === undefined) return;
    this.#gas = result.gasUsed;
    this.#failed = result.error !== undefined;
    // Return data when successful, the revert data when reverted, nothing for other failures.
    this.#output = result.error === undefined || result.error === 'revert' ? result.returnValue : EMPTY;
  }

  result(): { gas: number; failed: boolean; returnValue: string; structLogs: Array<Record<string, unknown>> } {
    this.throwIfStopped();
    return {
      gas: Number(this.#gas),
      failed: this.#failed,
      returnValue: hexBytes(this.#output),
      structLogs: this.#logs.map(entryJson),
    };
  }
}

/** About the JSON size of an entry (what the result budget counts). */
function entrySize(e: Entry): number {
  let n = 72 + e.op.length;
  if (e.stack !== undefined) for (const v of e.stack) n += v.length + 3;
  if (e.memory !== undefined) n += e.memory.length * 67;
  if (e.storage !== undefined) n += Object.keys(e.storage).length * 134;
  if (e.returnData !== undefined) n += e.returnData.length + 16;
  return n;
}

function isPreExecutionError(err: string): boolean {
  return err === 'out of gas' || err === 'stack underflow' || err === 'stack overflow';
}
