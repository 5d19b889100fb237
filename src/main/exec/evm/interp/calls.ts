// CALL, CALLCODE, DELEGATECALL, STATICCALL, CREATE, CREATE2 and SELFDESTRUCT on tern's frame interpreter: the gas
// (EIP-150's 63/64, EIP-2929 warm/cold, the value-transfer stipend, new-account gas, EIP-7702 delegation access,
// EIP-3860 initcode words), the static-call rules and the checks @ethereumjs/evm makes before a sub-message
// (depth, balance, nonce), in ethereumjs's order, so halts and gas agree step for step. The sub-message itself runs
// through the EVM's message execution (runCall: checkpoint, value transfer, precompiles, code deposit, collision),
// whose frames come back to tern's interpreter. Cancun/Prague rules only (./evm.ts admits no other fork).

import { EVMError, type EVMResult, Message } from '@ethereumjs/evm';
import { Account, Address, bytesToHex, MAX_UINT64 } from '@ethereumjs/util';
import { addressKey } from '../warmJournal.js';
import type { FrameInput } from './frame.js';
import { fail } from './halt.js';

const ERR = EVMError.errorMessages;
const EMPTY = new Uint8Array(0);
const MASK_160 = (1n << 160n) - 1n;
/** Initcode lengths past this cost more gas than any admitted frame has (and more memory than it may grow). */
const MAX_LENGTH = 2n ** 32n;

/** Runs one sub-message as @ethereumjs/evm's runCall does. */
export interface CallHost {
  runMessage(message: Message): Promise<EVMResult>;
}

/** The frame's registers a call opcode reads and updates (./frame.ts copies them back after the opcode). */
export interface FrameContext {
  readonly f: FrameInput;
  readonly stack: bigint[];
  sp: number;
  gasLeft: number;
  refund: number;
  returnData: Uint8Array;
  /** The frame's own account as ethereumjs keeps it (undefined until first read). */
  contract: Account | undefined;
  readonly logs: Array<[Uint8Array, Uint8Array[], Uint8Array]>;
  /** The frame's memory as it is now (it may be replaced when it grows). */
  memory(): Uint8Array;
  /** Memory expansion over [offset, offset + length): grows memory, returns its gas (Infinity past any frame). */
  expand(offset: bigint, length: bigint): number;
}

function addressOf(v: bigint): Address {
  const bytes = new Uint8Array(20);
  let x = v & MASK_160;
  for (let i = 19; i >= 0 && x !== 0n; i--) {
    bytes[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return new Address(bytes);
}

function toBigint(bytes: Uint8Array): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

function word32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x !== 0n; i--) {
    out[i] = Number(x & 0xffn);
    x >>= 8n;
  }
  return out;
}

async function ownAccount(ctx: FrameContext): Promise<Account> {
  if (ctx.contract === undefined) ctx.contract = (await ctx.f.state.getAccount(ctx.f.address)) ?? new Account();
  return ctx.contract;
}

/** Charges `cost` as ethereumjs's useGas does (an out-of-gas halt leaves no gas). */
function useGas(ctx: FrameContext, cost: number): void {
  ctx.gasLeft -= cost;
  if (!(ctx.gasLeft >= 0)) {
    ctx.gasLeft = 0;
    fail(ERR.OUT_OF_GAS);
  }
}

/** EIP-2929: the price of touching the account `a` (a 20-byte word), warming it. */
function accessCost(f: FrameInput, a: bigint): number {
  return f.journal.warmAccount(a) ? f.params.warmstoragereadGas : f.params.coldaccountaccessGas;
}

function words(length: bigint): number {
  return length > MAX_LENGTH ? Number.POSITIVE_INFINITY : Math.ceil(Number(length) / 32);
}

/** Folds a finished sub-message into the frame, as ethereumjs's _baseCall / create do. */
async function absorb(ctx: FrameContext, r: EVMResult, sub: Message, create: boolean): Promise<boolean> {
  const res = r.execResult;
  if (res.logs !== undefined) for (const log of res.logs) ctx.logs.push(log);
  useGas(ctx, Number(res.executionGasUsed));
  const err = res.exceptionError;
  if (err === undefined ? !create : err.error === ERR.REVERT) ctx.returnData = res.returnValue ?? EMPTY;
  if (err !== undefined && !(create && err.error === ERR.CODESTORE_OUT_OF_GAS)) return false;
  const f = ctx.f;
  for (const [a, b] of sub.selfdestruct ?? []) f.selfdestruct.set(a, b);
  for (const a of sub.createdAddresses ?? []) f.createdAddresses.add(a);
  const account = await f.state.getAccount(f.address);
  if (account === undefined) throw new Error('could not read contract account');
  ctx.contract = account;
  ctx.refund = Number(res.gasRefund ?? 0n);
  return true;
}

/** CALL (0xf1), CALLCODE (0xf2), DELEGATECALL (0xf4), STATICCALL (0xfa). */
export async function callFrame(ctx: FrameContext, op: number): Promise<void> {
  const { f, stack } = ctx;
  const p = f.params;
  const hasValue = op === 0xf1 || op === 0xf2;
  const sp = ctx.sp;
  if (sp < (hasValue ? 7 : 6)) fail(ERR.STACK_UNDERFLOW);
  const requested = stack[sp - 1] as bigint;
  const toWord = (stack[sp - 2] as bigint) & MASK_160;
  const to = addressOf(toWord);
  let i = sp - 3;
  const value = hasValue ? (stack[i--] as bigint) : 0n;
  const inOffset = stack[i] as bigint;
  const inLength = stack[i - 1] as bigint;
  const outOffset = stack[i - 2] as bigint;
  const outLength = stack[i - 3] as bigint;
  if (op === 0xf1 && f.isStatic && value !== 0n) fail(ERR.STATIC_STATE_CHANGE);
  let gas = (f.table.fee[op] as number) + ctx.expand(inOffset, inLength) + ctx.expand(outOffset, outLength);
  gas += accessCost(f, toWord);
  if (hasValue && value !== 0n) gas += p.callValueTransferGas;
  if (op === 0xf1 && value !== 0n) {
    const account = await f.state.getAccount(to);
    if (account === undefined || account.isEmpty()) gas += p.callNewAccountGas;
  }
  // EIP-7702: calling a delegated account also touches its delegation target.
  if (f.delegations) {
    const code = await f.state.getCode(to);
    if (code.length >= 3 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00)
      gas += accessCost(f, addressKey(code.subarray(3, 24)));
  }
  if (!(gas <= ctx.gasLeft)) fail(ERR.OUT_OF_GAS); // ethereumjs halts here with the frame's gas left untouched
  const available = ctx.gasLeft - gas;
  const allowed = available - Math.floor(available / 64);
  let gasLimit = requested > BigInt(allowed) ? allowed : Number(requested);
  ctx.gasLeft -= gas;
  ctx.sp = sp - (hasValue ? 7 : 6);
  const data = inLength === 0n ? new Uint8Array(0) : ctx.memory().slice(Number(inOffset), Number(inOffset + inLength));
  if (hasValue && value !== 0n) {
    ctx.gasLeft += p.callStipendGas;
    gasLimit += p.callStipendGas;
  }
  ctx.returnData = EMPTY;
  const self = f.address;
  const delegate = op === 0xf4;
  let ok = false;
  if (f.depth < p.stackLimit && (delegate || (await ownAccount(ctx)).balance >= value)) {
    const sub = new Message({
      caller: delegate ? addressOf(f.caller) : self,
      gasLimit: BigInt(gasLimit),
      to: op === 0xf2 || delegate ? self : to,
      ...(op === 0xf2 || delegate ? { codeAddress: to } : {}),
      value: delegate ? f.callValue : value,
      data,
      isStatic: op === 0xfa ? true : f.isStatic,
      delegatecall: delegate,
      depth: f.depth + 1,
      blobVersionedHashes: f.blobVersionedHashes,
      selfdestruct: new Map(f.selfdestruct),
      gasRefund: BigInt(ctx.refund),
      createdAddresses: new Set(f.createdAddresses),
    });
    ok = await absorb(ctx, await f.host.runMessage(sub), sub, false);
  }
  const out = ctx.returnData;
  if (out.length > 0 && outLength !== 0n) {
    const n = BigInt(out.length) < outLength ? out.length : Number(outLength);
    ctx.memory().set(out.subarray(0, n), Number(outOffset));
  }
  stack[ctx.sp++] = ok ? 1n : 0n;
}

/** CREATE (0xf0) and CREATE2 (0xf5). */
export async function createFrame(ctx: FrameContext, op: number): Promise<void> {
  const { f, stack } = ctx;
  const p = f.params;
  const sp = ctx.sp;
  const create2 = op === 0xf5;
  if (sp < (create2 ? 4 : 3)) fail(ERR.STACK_UNDERFLOW);
  if (f.isStatic) fail(ERR.STATIC_STATE_CHANGE);
  const value = stack[sp - 1] as bigint;
  const offset = stack[sp - 2] as bigint;
  const length = stack[sp - 3] as bigint;
  const salt = create2 ? (stack[sp - 4] as bigint) : 0n;
  let gas = (f.table.fee[op] as number) + ctx.expand(offset, length);
  // The creating account is warmed for free (it is the frame's own, warm already in every real transaction).
  f.journal.warmAccount(f.self);
  gas += words(length) * p.initCodeWordGas;
  if (create2) gas += words(length) * p.keccak256WordGas;
  useGas(ctx, gas);
  const available = ctx.gasLeft;
  const gasLimit = available - Math.floor(available / 64);
  ctx.sp = sp - (create2 ? 4 : 3);
  if (length > BigInt(p.maxInitCodeSize)) fail(ERR.INITCODE_SIZE_VIOLATION);
  const at = Number(offset);
  const initCode = length === 0n ? new Uint8Array(0) : ctx.memory().slice(at, at + Number(length));
  // Legacy code cannot deploy EOF: nothing runs, the return data stays as it was.
  if (initCode.length >= 2 && initCode[0] === 0xef && initCode[1] === 0x00) {
    stack[ctx.sp++] = 0n;
    return;
  }
  ctx.returnData = EMPTY;
  const contract = await ownAccount(ctx);
  if (f.depth >= p.stackLimit || contract.balance < value || contract.nonce >= MAX_UINT64) {
    stack[ctx.sp++] = 0n;
    return;
  }
  contract.nonce += 1n;
  await f.journal.putAccount(f.address, contract);
  const sub = new Message({
    caller: f.address,
    gasLimit: BigInt(gasLimit),
    value,
    data: initCode,
    ...(create2 ? { salt: word32(salt) } : {}),
    depth: f.depth + 1,
    selfdestruct: new Map(f.selfdestruct),
    gasRefund: BigInt(ctx.refund),
    blobVersionedHashes: f.blobVersionedHashes,
    createdAddresses: new Set(f.createdAddresses),
  });
  const r = await f.host.runMessage(sub);
  const ok = await absorb(ctx, r, sub, true);
  stack[ctx.sp++] = ok && r.createdAddress !== undefined ? toBigint(r.createdAddress.bytes) : 0n;
}

/** SELFDESTRUCT (0xff) under EIP-6780: the frame stops afterwards (./frame.ts). */
export async function selfDestruct(ctx: FrameContext): Promise<void> {
  const { f, stack } = ctx;
  const p = f.params;
  if (f.isStatic) fail(ERR.STATIC_STATE_CHANGE);
  if (ctx.sp < 1) fail(ERR.STACK_UNDERFLOW);
  const toWord = (stack[ctx.sp - 1] as bigint) & MASK_160;
  const to = addressOf(toWord);
  const balance = (await ownAccount(ctx)).balance;
  let gas = f.table.fee[0xff] as number;
  if (balance > 0n) {
    const account = await f.state.getAccount(to);
    if (account === undefined || account.isEmpty()) gas += p.callNewAccountGas;
  }
  // A cold beneficiary costs the cold access; a warm one costs nothing extra.
  if (!f.journal.warmAccount(toWord)) gas += p.coldaccountaccessGas;
  useGas(ctx, gas);
  ctx.sp--;
  const self = f.address;
  const key = bytesToHex(self.bytes);
  if (!f.selfdestruct.has(key)) ctx.refund += p.selfdestructRefundGas;
  f.selfdestruct.set(key, to.toString());
  const toSelf = to.equals(self);
  const contractBalance = (ctx.contract as Account).balance;
  if (!toSelf) {
    const beneficiary = (await f.state.getAccount(to)) ?? new Account();
    beneficiary.balance += contractBalance;
    await f.journal.putAccount(to, beneficiary);
  }
  // EIP-6780: the balance leaves unless an account created before this transaction sends it to itself.
  if (!toSelf || f.createdAddresses.has(self.toString())) await f.state.modifyAccountFields(self, { balance: 0n });
}
