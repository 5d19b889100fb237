// tern's frame interpreter: runs one call frame's legacy bytecode over a preallocated bigint stack and a growable
// byte memory, with static gas from the fork's table and dynamic gas computed inline, synchronously except where
// it reads or writes storage or enters a sub-call. Semantics, gas, refunds and the exceptional-halt kinds
// (including the order in which they are checked: stack underflow before gas for dynamically priced opcodes, gas
// first for the others) follow @ethereumjs/evm's interpreter, so a frame gives the same ExecResult on either.
// Calls and creations (./calls.ts) price and set up the sub-message here and run it through the EVM's message
// execution. Only the opcodes ./analysis.ts lists as implemented reach here; ./evm.ts sends every other frame to
// @ethereumjs/evm.

import { EVMError } from '@ethereumjs/evm';
import { Account, Address, bigIntToBytes, type PrefixedHexString } from '@ethereumjs/util';
import { keccak256 } from '../../../native/keccak.js';
import { keccak256Word, wordAt } from '../../../native/keccakWord.js';
import type { CodeAnalysis, GasTable } from './analysis.js';
import { type CallHost, callFrame, createFrame, type FrameContext, selfDestruct } from './calls.js';
import { fail, Halt } from './halt.js';
import { addmod, mulmod } from './modmath.js';

const ERR = EVMError.errorMessages;
const MASK = (1n << 256n) - 1n;
const MOD = 1n << 256n;
const MASK_64 = (1n << 64n) - 1n;
const STACK_LIMIT = 1024;
/**
 * Stacks of finished frames, reused: a 1,024-slot array per frame (one per ERC-20 transfer) was a steady share of the
 * garbage. Slots at and above `sp` are never read, so a reused stack needs no clearing.
 */
const stackPool: bigint[][] = [];
const STACK_POOL_MAX = 32;
/** Memory past this many bytes costs more gas than a frame can have (frames are admitted with ≤ 2^40 gas). */
const MAX_MEMORY = 2 ** 31;
const EMPTY = new Uint8Array(0);
const MASK_160 = (1n << 160n) - 1n;
/** What legacy code sees of EOF code (EXTCODESIZE/EXTCODECOPY/EXTCODEHASH), as ethereumjs treats it. */
const EOF_BYTES = Uint8Array.from([0xef, 0x00]);

interface BufferHex {
  hexSlice(this: Uint8Array, start: number, end: number): string;
}
const { hexSlice } = Buffer.prototype as unknown as BufferHex;

/** The fork's gas parameters the dynamic prices use (numbers: every one is small). */
export interface GasParams {
  readonly memoryGas: number;
  readonly quadCoefficientDivGas: number;
  readonly keccak256WordGas: number;
  readonly copyGas: number;
  readonly logTopicGas: number;
  readonly logDataGas: number;
  readonly expByteGas: number;
  readonly coldsloadGas: number;
  readonly warmstoragereadGas: number;
  readonly sstoreSentryEIP2200Gas: number;
  readonly sstoreNoopEIP2200Gas: number;
  readonly sstoreInitEIP2200Gas: number;
  readonly sstoreCleanEIP2200Gas: number;
  readonly sstoreClearRefundEIP2200Gas: number;
  readonly sstoreInitRefundEIP2200Gas: number;
  readonly sstoreCleanRefundEIP2200Gas: number;
  readonly sstoreDirtyEIP2200Gas: number;
  readonly sstoreResetGas: number;
  readonly coldaccountaccessGas: number;
  readonly callStipendGas: number;
  readonly callValueTransferGas: number;
  readonly callNewAccountGas: number;
  readonly initCodeWordGas: number;
  readonly maxInitCodeSize: number;
  readonly selfdestructRefundGas: number;
  readonly stackLimit: number;
}

/** The storage, journal and transient storage a frame works on (the EVM's own). */
export interface FrameState {
  getStorage(address: Address, key: Uint8Array): Promise<Uint8Array>;
  putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void>;
  getAccount(address: Address): Promise<Account | undefined>;
  getCode(address: Address): Promise<Uint8Array>;
  modifyAccountFields(address: Address, fields: { balance: bigint }): Promise<void>;
  readonly originalStorageCache: { get(address: Address, key: Uint8Array): Promise<Uint8Array> };
}
/**
 * The same storage read and written synchronously, as bigints (tern's FlatState): where the EVM's state manager
 * offers it, storage opcodes do not await at all.
 */
export interface SyncStorage {
  getStorageValue(address: Uint8Array, slot: Uint8Array): bigint;
  setStorageValue(address: Uint8Array, slot: Uint8Array, value: bigint): void;
  getOriginalStorageValue(address: Uint8Array, slot: Uint8Array): bigint;
  getBalance(address: Address): bigint;
}
/** The EIP-2929 warm sets (../warmJournal.ts), asked with 20-byte address words and 32-byte slot words. */
export interface FrameJournal {
  /** Whether the account was warm; warm from now on either way. */
  warmAccount(address: bigint): boolean;
  /** Whether the slot was warm; warm from now on either way. */
  warmSlot(address: bigint, slot: bigint): boolean;
  isWarmSlot(address: bigint, slot: bigint): boolean;
  putAccount(address: Address, account: Account | undefined): Promise<void>;
}
export interface FrameTransient {
  get(address: Address, key: Uint8Array): Uint8Array;
  put(address: Address, key: Uint8Array, value: Uint8Array): void;
}

/** Everything one frame reads. */
export interface FrameInput {
  readonly code: Uint8Array;
  readonly analysis: CodeAnalysis;
  readonly table: GasTable;
  readonly params: GasParams;
  /** EIP-7702 is active: calls into a delegated account also access its target. */
  readonly delegations: boolean;
  readonly address: Address;
  /** `address` as a word. */
  readonly self: bigint;
  readonly caller: bigint;
  readonly origin: bigint;
  readonly callValue: bigint;
  readonly callData: Uint8Array;
  readonly isStatic: boolean;
  readonly gasLimit: number;
  readonly gasRefund: number;
  readonly gasPrice: bigint;
  readonly chainId: bigint;
  readonly block: {
    readonly timestamp: bigint;
    readonly number: bigint;
    readonly gasLimit: bigint;
    readonly baseFeePerGas?: bigint;
    readonly coinbase: Address;
    readonly prevRandao: Uint8Array;
    getBlobGasPrice(): bigint | undefined;
  };
  /** The transaction's blob versioned hashes (BLOBHASH). */
  readonly blobVersionedHashes: PrefixedHexString[];
  /** The hash of an earlier block (BLOCKHASH, within the last 256). */
  readonly blockHash: (number: number) => Promise<Uint8Array>;
  readonly state: FrameState;
  /** `state` itself when it also reads and writes synchronously. */
  readonly sync: SyncStorage | undefined;
  readonly journal: FrameJournal;
  readonly transient: FrameTransient;
  readonly keccak: (data: Uint8Array) => Uint8Array;
  /** The frame's call depth (0 for a transaction's own frame). */
  readonly depth: number;
  /** Accounts self-destructed so far (address hex → beneficiary), this frame's own copy. */
  readonly selfdestruct: Map<PrefixedHexString, PrefixedHexString>;
  /** Accounts created in this transaction (EIP-6780), this frame's own copy. */
  readonly createdAddresses: Set<PrefixedHexString>;
  /** Runs sub-messages (the EVM's message execution). */
  readonly host: CallHost;
}

/** How the frame ended. */
export interface FrameOutput {
  readonly returnValue: Uint8Array | undefined;
  readonly logs: Array<[Uint8Array, Uint8Array[], Uint8Array]>;
  readonly exceptionError: EVMError | undefined;
  readonly gasLeft: number;
  readonly gasRefund: number;
}

/** Items each statically priced opcode pops (checked after its gas), and 1 where it pushes without popping. */
const POPS = new Uint8Array(256);
const PUSHES_ONLY = new Uint8Array(256);
/** 1 for the opcodes priced by a dynamic-gas function in ethereumjs (their own order of checks applies). */
const DYNAMIC = new Uint8Array(256);
{
  const pops: Array<[number, number[]]> = [
    [1, [0x15, 0x19, 0x35, 0x40, 0x49, 0x50, 0x56, 0x5c]],
    [2, [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18, 0x1a]],
    [2, [0x1b, 0x1c, 0x1d, 0x57]],
    [3, [0x08, 0x09]],
  ];
  for (const [n, ops] of pops) for (const op of ops) POPS[op] = n;
  for (let i = 1; i <= 16; i++) POPS[0x7f + i] = i; // DUPi needs i items
  for (let i = 1; i <= 16; i++) POPS[0x8f + i] = i + 1; // SWAPi needs i + 1
  for (const op of [0x30, 0x32, 0x33, 0x34, 0x36, 0x38, 0x3a, 0x3d, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48])
    PUSHES_ONLY[op] = 1;
  for (const op of [0x4a, 0x58, 0x59]) PUSHES_ONLY[op] = 1;
  PUSHES_ONLY[0x5a] = 1;
  for (let op = 0x5f; op <= 0x8f; op++) PUSHES_ONLY[op] = 1; // PUSH0..PUSH32, DUP1..DUP16
  for (const op of [0x0a, 0x20, 0x37, 0x39, 0x3e, 0x51, 0x52, 0x53, 0x54, 0x55, 0x5e, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4])
    DYNAMIC[op] = 1;
  for (const op of [0x31, 0x3b, 0x3c, 0x3f]) DYNAMIC[op] = 1;
  for (const op of [0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xfa, 0xfd, 0xff]) DYNAMIC[op] = 1;
}

/** Total memory gas of `words` words (exact in doubles for every size admitted). */
function memoryGas(p: GasParams, words: number): number {
  return words * p.memoryGas + Math.floor((words * words) / p.quadCoefficientDivGas);
}

function toBigint(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${hexSlice.call(bytes, 0, bytes.length)}`);
}

/** Writes the word `v` big-endian at `view[at, at + 32)`: four 64-bit stores (setBigUint64 keeps the low 64 bits). */
function storeWord(view: DataView, at: number, v: bigint): void {
  if (v <= MASK_64) {
    view.setBigUint64(at, 0n);
    view.setBigUint64(at + 8, 0n);
    view.setBigUint64(at + 16, 0n);
  } else {
    view.setBigUint64(at, v >> 192n);
    view.setBigUint64(at + 8, v >> 128n);
    view.setBigUint64(at + 16, v >> 64n);
  }
  view.setBigUint64(at + 24, v);
}

const wordScratch = new Uint8Array(32);
const wordScratchView = new DataView(wordScratch.buffer);

function word32(v: bigint): Uint8Array {
  storeWord(wordScratchView, 0, v);
  return wordScratch.slice();
}

/** a ** e mod 2^256. */
function exp256(a: bigint, e: bigint): bigint {
  let r = 1n;
  let b = a;
  while (e > 0n) {
    if ((e & 1n) === 1n) r = (r * b) & MASK;
    b = (b * b) & MASK;
    e >>= 1n;
  }
  return r;
}

/** `data[offset, offset + length)` padded with zeros to `length` bytes (length ≤ MAX_MEMORY). */
function dataSlice(data: Uint8Array, offset: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  if (offset < BigInt(data.length)) {
    const at = Number(offset);
    out.set(data.subarray(at, Math.min(data.length, at + length)));
  }
  return out;
}

/** Runs the frame to its end. Throws only for errors that are not EVM halts (a broken state backend). */
export async function runFrame(f: FrameInput): Promise<FrameOutput> {
  const { code, table, params: p, address, self, state, sync, journal } = f;
  const { jumpdests, pushes } = f.analysis;
  const fee = table.fee;
  const invalid = table.invalid;
  const addressBytes = address.bytes;
  const codeLength = code.length;
  const stack: bigint[] = stackPool.pop() ?? new Array(STACK_LIMIT).fill(0n);
  let sp = 0;
  let mem = new Uint8Array(1024);
  /** A view of `mem` for word loads and stores, replaced with it. */
  let memView = new DataView(mem.buffer);
  /** The hash the KECCAK256 opcode uses: tern's own hashes memory in place; any other (a recorder) gets the bytes. */
  const hashWord = f.keccak === keccak256 ? keccak256Word : undefined;
  /** A view of the call data for CALLDATALOAD, made on first use. */
  let callDataView: DataView | undefined;
  let words = 0;
  let gasLeft = f.gasLimit;
  let refund = f.gasRefund;
  let pc = 0;
  let returnValue: Uint8Array | undefined;
  const logs: Array<[Uint8Array, Uint8Array[], Uint8Array]> = [];
  let exceptionError: EVMError | undefined;
  /** The data the last call or creation returned (RETURNDATASIZE, RETURNDATACOPY). */
  let returnData: Uint8Array = EMPTY;
  /**
   * The frame's own account as ethereumjs keeps it: read when first needed (nothing in the frame changes it before a
   * sub-call, so this is the frame-start account), replaced after each successful sub-call or creation, its nonce
   * bumped by CREATE. BALANCE/SELFBALANCE of the frame's address, value checks and SELFDESTRUCT read it.
   */
  let contract: Account | undefined;
  const ownAccount = async (): Promise<Account> => {
    if (contract === undefined) contract = (await state.getAccount(address)) ?? new Account();
    return contract;
  };

  /** Gas to grow memory over [offset, offset + length) and grows it; Infinity when no frame could pay it. */
  const expand = (offset: bigint, length: bigint): number => {
    if (length === 0n) return 0;
    const end = offset + length;
    if (end > BigInt(MAX_MEMORY)) return Number.POSITIVE_INFINITY;
    const newWords = Math.ceil(Number(end) / 32);
    if (newWords <= words) return 0;
    const cost = memoryGas(p, newWords) - memoryGas(p, words);
    words = newWords;
    if (newWords * 32 > mem.length) {
      const grown = new Uint8Array(Math.max(newWords * 32, mem.length * 2));
      grown.set(mem);
      mem = grown;
      memView = new DataView(mem.buffer);
    }
    return cost;
  };
  const charge = (cost: number): void => {
    gasLeft -= cost;
    // `!(>= 0)`: a NaN charge (never expected) halts too instead of running on
    if (!(gasLeft >= 0)) {
      gasLeft = 0;
      fail(ERR.OUT_OF_GAS);
    }
  };
  const slotKey = (v: bigint): Uint8Array => word32(v);
  /** The account a stack word names (its low 160 bits). */
  const accountAt = (v: bigint): Address => new Address(word32(v & MASK_160).subarray(12));
  /** EIP-2929 account access to the account a stack word names: warms it, returns its price. */
  const accessAccount = (v: bigint): number =>
    journal.warmAccount(v & MASK_160) ? p.warmstoragereadGas : p.coldaccountaccessGas;

  try {
    run: for (;;) {
      if (pc >= codeLength) break;
      const op = code[pc] as number;
      if (invalid[op] === 1) fail(ERR.INVALID_OPCODE);
      if (DYNAMIC[op] === 0) {
        gasLeft -= fee[op] as number;
        if (gasLeft < 0) {
          gasLeft = 0;
          fail(ERR.OUT_OF_GAS);
        }
        if (sp < (POPS[op] as number)) fail(ERR.STACK_UNDERFLOW);
        if (PUSHES_ONLY[op] === 1 && sp >= STACK_LIMIT) fail(ERR.STACK_OVERFLOW);
      }
      switch (op) {
        case 0x00:
          break run;
        case 0x01: {
          sp--;
          const s = (stack[sp] as bigint) + (stack[sp - 1] as bigint);
          stack[sp - 1] = s > MASK ? s - MOD : s;
          break;
        }
        case 0x02:
          sp--;
          stack[sp - 1] = ((stack[sp] as bigint) * (stack[sp - 1] as bigint)) & MASK;
          break;
        case 0x03: {
          sp--;
          const d = (stack[sp] as bigint) - (stack[sp - 1] as bigint);
          stack[sp - 1] = d < 0n ? d + MOD : d;
          break;
        }
        case 0x04: {
          sp--;
          const b = stack[sp - 1] as bigint;
          stack[sp - 1] = b === 0n ? 0n : (stack[sp] as bigint) / b;
          break;
        }
        case 0x05: {
          sp--;
          const b = stack[sp - 1] as bigint;
          stack[sp - 1] =
            b === 0n ? 0n : BigInt.asUintN(256, BigInt.asIntN(256, stack[sp] as bigint) / BigInt.asIntN(256, b));
          break;
        }
        case 0x06: {
          sp--;
          const b = stack[sp - 1] as bigint;
          stack[sp - 1] = b === 0n ? 0n : (stack[sp] as bigint) % b;
          break;
        }
        case 0x07: {
          sp--;
          const b = stack[sp - 1] as bigint;
          stack[sp - 1] =
            b === 0n ? 0n : BigInt.asUintN(256, BigInt.asIntN(256, stack[sp] as bigint) % BigInt.asIntN(256, b));
          break;
        }
        case 0x08:
          sp -= 2;
          stack[sp - 1] = addmod(stack[sp + 1] as bigint, stack[sp] as bigint, stack[sp - 1] as bigint);
          break;
        case 0x09:
          sp -= 2;
          stack[sp - 1] = mulmod(stack[sp + 1] as bigint, stack[sp] as bigint, stack[sp - 1] as bigint);
          break;
        case 0x0a: {
          if (sp < 2) fail(ERR.STACK_UNDERFLOW);
          const e = stack[sp - 2] as bigint;
          const bytes = e === 0n ? 0 : Math.ceil(e.toString(2).length / 8);
          charge((fee[op] as number) + bytes * p.expByteGas);
          sp--;
          const a = stack[sp] as bigint;
          stack[sp - 1] = e === 0n ? 1n : a === 0n ? 0n : exp256(a, e);
          break;
        }
        case 0x0b: {
          sp--;
          const k = stack[sp] as bigint;
          let v = stack[sp - 1] as bigint;
          if (k < 31n) {
            const signBit = k * 8n + 7n;
            const mask = (1n << signBit) - 1n;
            v = ((v >> signBit) & 1n) === 1n ? v | (MASK ^ mask) : v & mask;
          }
          stack[sp - 1] = v;
          break;
        }
        case 0x10:
          sp--;
          stack[sp - 1] = (stack[sp] as bigint) < (stack[sp - 1] as bigint) ? 1n : 0n;
          break;
        case 0x11:
          sp--;
          stack[sp - 1] = (stack[sp] as bigint) > (stack[sp - 1] as bigint) ? 1n : 0n;
          break;
        case 0x12:
          sp--;
          stack[sp - 1] =
            BigInt.asIntN(256, stack[sp] as bigint) < BigInt.asIntN(256, stack[sp - 1] as bigint) ? 1n : 0n;
          break;
        case 0x13:
          sp--;
          stack[sp - 1] =
            BigInt.asIntN(256, stack[sp] as bigint) > BigInt.asIntN(256, stack[sp - 1] as bigint) ? 1n : 0n;
          break;
        case 0x14:
          sp--;
          stack[sp - 1] = stack[sp] === stack[sp - 1] ? 1n : 0n;
          break;
        case 0x15:
          stack[sp - 1] = stack[sp - 1] === 0n ? 1n : 0n;
          break;
        case 0x16:
          sp--;
          stack[sp - 1] = (stack[sp] as bigint) & (stack[sp - 1] as bigint);
          break;
        case 0x17:
          sp--;
          stack[sp - 1] = (stack[sp] as bigint) | (stack[sp - 1] as bigint);
          break;
        case 0x18:
          sp--;
          stack[sp - 1] = (stack[sp] as bigint) ^ (stack[sp - 1] as bigint);
          break;
        case 0x19:
          stack[sp - 1] = MASK ^ (stack[sp - 1] as bigint);
          break;
        case 0x1a: {
          sp--;
          const i = stack[sp] as bigint;
          stack[sp - 1] = i >= 32n ? 0n : ((stack[sp - 1] as bigint) >> ((31n - i) * 8n)) & 0xffn;
          break;
        }
        case 0x1b: {
          sp--;
          const s = stack[sp] as bigint;
          stack[sp - 1] = s >= 256n ? 0n : ((stack[sp - 1] as bigint) << s) & MASK;
          break;
        }
        case 0x1c: {
          sp--;
          const s = stack[sp] as bigint;
          stack[sp - 1] = s >= 256n ? 0n : (stack[sp - 1] as bigint) >> s;
          break;
        }
        case 0x1d: {
          sp--;
          const s = stack[sp] as bigint;
          const v = BigInt.asIntN(256, stack[sp - 1] as bigint);
          stack[sp - 1] = s >= 256n ? (v < 0n ? MASK : 0n) : BigInt.asUintN(256, v >> s);
          break;
        }
        case 0x20: {
          if (sp < 2) fail(ERR.STACK_UNDERFLOW);
          const offset = stack[sp - 1] as bigint;
          const length = stack[sp - 2] as bigint;
          const m = expand(offset, length);
          charge((fee[op] as number) + m + p.keccak256WordGas * Math.ceil(Number(length) / 32));
          sp--;
          // An empty range hashes nothing, wherever its offset points.
          const at = length === 0n ? 0 : Number(offset);
          const n = Number(length);
          if (hashWord !== undefined) stack[sp - 1] = hashWord(mem, at, n);
          else stack[sp - 1] = toBigint(f.keccak(n === 0 ? EMPTY : mem.subarray(at, at + n)));
          break;
        }
        case 0x30:
          stack[sp++] = self;
          break;
        case 0x31: {
          if (sp < 1) fail(ERR.STACK_UNDERFLOW);
          const a = accountAt(stack[sp - 1] as bigint);
          charge((fee[op] as number) + accessAccount(stack[sp - 1] as bigint));
          if (a.equals(address)) stack[sp - 1] = (await ownAccount()).balance;
          else stack[sp - 1] = sync !== undefined ? sync.getBalance(a) : ((await state.getAccount(a))?.balance ?? 0n);
          break;
        }
        case 0x3b: {
          if (sp < 1) fail(ERR.STACK_UNDERFLOW);
          const a = accountAt(stack[sp - 1] as bigint);
          charge((fee[op] as number) + accessAccount(stack[sp - 1] as bigint));
          const c = await state.getCode(a);
          stack[sp - 1] = BigInt(isEof(c) ? EOF_BYTES.length : c.length);
          break;
        }
        case 0x3c: {
          if (sp < 4) fail(ERR.STACK_UNDERFLOW);
          const word = stack[sp - 1] as bigint;
          const a = accountAt(word);
          const memOffset = stack[sp - 2] as bigint;
          const codeOffset = stack[sp - 3] as bigint;
          const length = stack[sp - 4] as bigint;
          const m = expand(memOffset, length);
          const access = accessAccount(word);
          charge((fee[op] as number) + m + access + (length === 0n ? 0 : p.copyGas * Math.ceil(Number(length) / 32)));
          sp -= 4;
          if (length !== 0n) {
            let c = await state.getCode(a);
            if (isEof(c)) c = EOF_BYTES;
            mem.set(dataSlice(c, codeOffset, Number(length)), Number(memOffset));
          }
          break;
        }
        case 0x3f: {
          if (sp < 1) fail(ERR.STACK_UNDERFLOW);
          const a = accountAt(stack[sp - 1] as bigint);
          charge((fee[op] as number) + accessAccount(stack[sp - 1] as bigint));
          const c = await state.getCode(a);
          if (isEof(c)) stack[sp - 1] = toBigint(f.keccak(EOF_BYTES));
          else {
            const account = await state.getAccount(a);
            stack[sp - 1] = account === undefined || account.isEmpty() ? 0n : toBigint(account.codeHash);
          }
          break;
        }
        case 0x40: {
          const n = stack[sp - 1] as bigint;
          const diff = f.block.number - n;
          stack[sp - 1] = diff > 256n || diff <= 0n ? 0n : toBigint(await f.blockHash(Number(n)));
          break;
        }
        case 0x41:
          stack[sp++] = toBigint(f.block.coinbase.bytes);
          break;
        case 0x44:
          stack[sp++] = toBigint(f.block.prevRandao);
          break;
        case 0x49: {
          const i = stack[sp - 1] as bigint;
          const hashes = f.blobVersionedHashes;
          stack[sp - 1] = i < BigInt(hashes.length) ? BigInt(hashes[Number(i)] as string) : 0n;
          break;
        }
        case 0x4a: {
          const blobBaseFee = f.block.getBlobGasPrice();
          if (blobBaseFee === undefined) throw new Error('Block has no Blob Base Fee');
          stack[sp++] = blobBaseFee;
          break;
        }
        case 0x32:
          stack[sp++] = f.origin;
          break;
        case 0x33:
          stack[sp++] = f.caller;
          break;
        case 0x34:
          stack[sp++] = f.callValue;
          break;
        case 0x35: {
          const pos = stack[sp - 1] as bigint;
          const data = f.callData;
          if (pos >= BigInt(data.length)) stack[sp - 1] = 0n;
          else {
            const i = Number(pos);
            const n = Math.min(32, data.length - i);
            if (n === 32) {
              callDataView ??= new DataView(data.buffer, data.byteOffset, data.length);
              stack[sp - 1] = wordAt(callDataView, i);
            } else stack[sp - 1] = toBigint(data.subarray(i, i + n)) << BigInt(8 * (32 - n));
          }
          break;
        }
        case 0x36:
          stack[sp++] = BigInt(f.callData.length);
          break;
        case 0x37:
        case 0x39: {
          if (sp < 3) fail(ERR.STACK_UNDERFLOW);
          const memOffset = stack[sp - 1] as bigint;
          const dataOffset = stack[sp - 2] as bigint;
          const length = stack[sp - 3] as bigint;
          const m = expand(memOffset, length);
          charge((fee[op] as number) + m + (length === 0n ? 0 : p.copyGas * Math.ceil(Number(length) / 32)));
          sp -= 3;
          if (length !== 0n)
            mem.set(dataSlice(op === 0x37 ? f.callData : code, dataOffset, Number(length)), Number(memOffset));
          break;
        }
        case 0x38:
          stack[sp++] = BigInt(codeLength);
          break;
        case 0x3a:
          stack[sp++] = f.gasPrice;
          break;
        case 0x3d:
          stack[sp++] = BigInt(returnData.length);
          break;
        case 0x3e: {
          if (sp < 3) fail(ERR.STACK_UNDERFLOW);
          const memOffset = stack[sp - 1] as bigint;
          const dataOffset = stack[sp - 2] as bigint;
          const length = stack[sp - 3] as bigint;
          if (dataOffset + length > BigInt(returnData.length)) fail(ERR.OUT_OF_GAS);
          const m = expand(memOffset, length);
          charge((fee[op] as number) + m + (length === 0n ? 0 : p.copyGas * Math.ceil(Number(length) / 32)));
          sp -= 3;
          if (length !== 0n) mem.set(dataSlice(returnData, dataOffset, Number(length)), Number(memOffset));
          break;
        }
        case 0x42:
          stack[sp++] = f.block.timestamp;
          break;
        case 0x43:
          stack[sp++] = f.block.number;
          break;
        case 0x45:
          stack[sp++] = f.block.gasLimit;
          break;
        case 0x46:
          stack[sp++] = f.chainId;
          break;
        case 0x47:
          stack[sp++] = (await ownAccount()).balance;
          break;
        case 0x48: {
          const baseFee = f.block.baseFeePerGas;
          if (baseFee === undefined) throw new Error('Block has no Base Fee');
          stack[sp++] = baseFee;
          break;
        }
        case 0x50:
          sp--;
          break;
        case 0x51: {
          if (sp < 1) fail(ERR.STACK_UNDERFLOW);
          const offset = stack[sp - 1] as bigint;
          charge((fee[op] as number) + expand(offset, 32n));
          stack[sp - 1] = wordAt(memView, Number(offset));
          break;
        }
        case 0x52: {
          if (sp < 1) fail(ERR.STACK_UNDERFLOW);
          const offset = stack[sp - 1] as bigint;
          charge((fee[op] as number) + expand(offset, 32n));
          if (sp < 2) fail(ERR.STACK_UNDERFLOW);
          sp -= 2;
          storeWord(memView, Number(offset), stack[sp] as bigint);
          break;
        }
        case 0x53: {
          if (sp < 1) fail(ERR.STACK_UNDERFLOW);
          const offset = stack[sp - 1] as bigint;
          charge((fee[op] as number) + expand(offset, 1n));
          if (sp < 2) fail(ERR.STACK_UNDERFLOW);
          sp -= 2;
          mem[Number(offset)] = Number((stack[sp] as bigint) & 0xffn);
          break;
        }
        case 0x54: {
          if (sp < 1) fail(ERR.STACK_UNDERFLOW);
          const word = stack[sp - 1] as bigint;
          charge((fee[op] as number) + (journal.warmSlot(self, word) ? p.warmstoragereadGas : p.coldsloadGas));
          const key = slotKey(word);
          stack[sp - 1] =
            sync !== undefined
              ? sync.getStorageValue(addressBytes, key)
              : toBigint(await state.getStorage(address, key));
          break;
        }
        case 0x55: {
          if (f.isStatic) fail(ERR.STATIC_STATE_CHANGE);
          if (sp < 2) fail(ERR.STACK_UNDERFLOW);
          const word = stack[sp - 1] as bigint;
          const key = slotKey(word);
          const value = stack[sp - 2] as bigint;
          let current: bigint;
          let original: bigint;
          if (sync !== undefined) {
            current = sync.getStorageValue(addressBytes, key);
            original = sync.getOriginalStorageValue(addressBytes, key);
          } else {
            current = toBigint(await state.getStorage(address, key));
            original = toBigint(await state.originalStorageCache.get(address, key));
          }
          if (gasLeft <= p.sstoreSentryEIP2200Gas) fail(ERR.OUT_OF_GAS);
          const warm = journal.isWarmSlot(self, word);
          let cost: number;
          if (current === value) cost = warm ? p.warmstoragereadGas : p.sstoreNoopEIP2200Gas;
          else if (original === current) {
            if (original === 0n) cost = p.sstoreInitEIP2200Gas;
            else {
              if (value === 0n) refund += p.sstoreClearRefundEIP2200Gas;
              cost = p.sstoreCleanEIP2200Gas;
            }
          } else {
            if (original !== 0n) {
              if (current === 0n) {
                refund -= p.sstoreClearRefundEIP2200Gas;
                if (refund < 0) {
                  refund = 0;
                  fail(ERR.REFUND_EXHAUSTED);
                }
              } else if (value === 0n) refund += p.sstoreClearRefundEIP2200Gas;
            }
            if (original === value) {
              if (original === 0n)
                refund += warm ? p.sstoreInitEIP2200Gas - p.warmstoragereadGas : p.sstoreInitRefundEIP2200Gas;
              else
                refund += warm
                  ? p.sstoreResetGas - p.coldsloadGas - p.warmstoragereadGas
                  : p.sstoreCleanRefundEIP2200Gas;
            }
            cost = p.sstoreDirtyEIP2200Gas;
          }
          if (!warm) {
            journal.warmSlot(self, word);
            cost += p.coldsloadGas;
          }
          charge((fee[op] as number) + cost);
          sp -= 2;
          if (sync !== undefined) sync.setStorageValue(addressBytes, key, value);
          else await state.putStorage(address, key, value === 0n ? EMPTY : bigIntToBytes(value));
          break;
        }
        case 0x56: {
          sp--;
          const dest = stack[sp] as bigint;
          if (dest >= BigInt(codeLength) || jumpdests[Number(dest)] !== 1) fail(invalidJump(f, pc));
          pc = Number(dest);
          continue;
        }
        case 0x57: {
          sp -= 2;
          if (stack[sp] !== 0n) {
            const dest = stack[sp + 1] as bigint;
            if (dest >= BigInt(codeLength) || jumpdests[Number(dest)] !== 1) fail(invalidJump(f, pc));
            pc = Number(dest);
            continue;
          }
          break;
        }
        case 0x58:
          stack[sp++] = BigInt(pc);
          break;
        case 0x59:
          stack[sp++] = BigInt(words * 32);
          break;
        case 0x5a:
          stack[sp++] = BigInt(gasLeft);
          break;
        case 0x5b:
          break;
        case 0x5c:
          stack[sp - 1] = toBigint(f.transient.get(address, slotKey(stack[sp - 1] as bigint)));
          break;
        case 0x5d: {
          if (f.isStatic) fail(ERR.STATIC_STATE_CHANGE);
          if (sp < 2) fail(ERR.STACK_UNDERFLOW);
          sp -= 2;
          const v = stack[sp] as bigint;
          f.transient.put(address, slotKey(stack[sp + 1] as bigint), v === 0n ? EMPTY : bigIntToBytes(v));
          break;
        }
        case 0x5e: {
          if (sp < 3) fail(ERR.STACK_UNDERFLOW);
          const dst = stack[sp - 1] as bigint;
          const src = stack[sp - 2] as bigint;
          const length = stack[sp - 3] as bigint;
          const copyWords = length > BigInt(MAX_MEMORY) ? Number.POSITIVE_INFINITY : Math.ceil(Number(length) / 32);
          const m1 = expand(src, length);
          const m2 = expand(dst, length);
          charge((fee[op] as number) + 3 * copyWords + m1 + m2);
          sp -= 3;
          if (length !== 0n) {
            const s = Number(src);
            mem.copyWithin(Number(dst), s, s + Number(length));
          }
          break;
        }
        case 0x5f:
          stack[sp++] = 0n;
          break;
        case 0xf3:
        case 0xfd: {
          if (sp < 2) fail(ERR.STACK_UNDERFLOW);
          const offset = stack[sp - 1] as bigint;
          const length = stack[sp - 2] as bigint;
          charge((fee[op] as number) + expand(offset, length));
          sp -= 2;
          const at = Number(offset);
          returnValue = length === 0n ? new Uint8Array(0) : mem.slice(at, at + Number(length));
          if (op === 0xfd) fail(ERR.REVERT);
          break run;
        }
        case 0xf0:
        case 0xf5:
        case 0xf1:
        case 0xf2:
        case 0xf4:
        case 0xfa:
        case 0xff: {
          const ctx: FrameContext = {
            f,
            stack,
            sp,
            gasLeft,
            refund,
            returnData,
            contract,
            logs,
            memory: () => mem,
            expand,
          };
          let stop = false;
          try {
            if (op === 0xf0 || op === 0xf5) await createFrame(ctx, op);
            else if (op === 0xff) {
              await selfDestruct(ctx);
              stop = true;
            } else await callFrame(ctx, op);
          } finally {
            sp = ctx.sp;
            gasLeft = ctx.gasLeft;
            refund = ctx.refund;
            returnData = ctx.returnData;
            contract = ctx.contract;
          }
          if (stop) break run;
          break;
        }
        case 0xfe:
          fail(ERR.INVALID_OPCODE);
          break;
        default:
          if (op >= 0x60 && op <= 0x7f) {
            stack[sp++] = pushes[pc] as bigint;
            pc += op - 0x5e;
            continue;
          }
          if (op >= 0x80 && op <= 0x8f) {
            stack[sp] = stack[sp - (op - 0x7f)] as bigint;
            sp++;
            break;
          }
          if (op >= 0x90 && op <= 0x9f) {
            const j = sp - 1 - (op - 0x8f);
            const t = stack[sp - 1] as bigint;
            stack[sp - 1] = stack[j] as bigint;
            stack[j] = t;
            break;
          }
          if (op >= 0xa0 && op <= 0xa4) {
            if (f.isStatic) fail(ERR.STATIC_STATE_CHANGE);
            if (sp < 2) fail(ERR.STACK_UNDERFLOW);
            const offset = stack[sp - 1] as bigint;
            const length = stack[sp - 2] as bigint;
            const topics = op - 0xa0;
            const m = expand(offset, length);
            charge((fee[op] as number) + m + p.logTopicGas * topics + p.logDataGas * Number(length));
            if (sp < 2 + topics) fail(ERR.STACK_UNDERFLOW);
            sp -= 2;
            const topicBytes: Uint8Array[] = new Array(topics);
            for (let t = 0; t < topics; t++) topicBytes[t] = word32(stack[--sp] as bigint);
            const at = Number(offset);
            const data = length === 0n ? new Uint8Array(0) : mem.slice(at, at + Number(length));
            logs.push([addressBytes, topicBytes, data]);
            break;
          }
          // ./analysis.ts admits no other opcode.
          throw new Error(`tern interpreter: opcode 0x${op.toString(16)} reached but not implemented`);
      }
      pc++;
    }
  } catch (err) {
    if (!(err instanceof Halt)) throw err;
    exceptionError = err.error;
  } finally {
    if (stackPool.length < STACK_POOL_MAX) stackPool.push(stack);
  }
  return { returnValue, logs, exceptionError, gasLeft, gasRefund: refund };
}

function isEof(code: Uint8Array): boolean {
  return code.length >= 2 && code[0] === 0xef && code[1] === 0x00;
}

function invalidJump(f: FrameInput, pc: number): string {
  return `${ERR.INVALID_JUMP} at 0x${hexSlice.call(f.keccak(f.code), 0, 32)}/${f.address.toString()}:${pc}`;
}
