// Block-level system calls (calls from the system address outside any transaction, as geth's core/state_processor
// makes them): EIP-4788 beacon roots and EIP-2935 block hashes at block start, EIP-7002 withdrawal and EIP-7251
// consolidation request queues at block end, and the EIP-7685 requests (EIP-6110 deposits parsed from logs).
import { createHash } from 'node:crypto';
import { Address } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import type { Log } from '../../primitives/receipt/receipt.js';
import type { BlockEnv } from './env.js';
import type { Executor } from './transition.js';

const addr = (hex: string) => new Address(Uint8Array.from(Buffer.from(hex, 'hex')));

/** EIP-4788 beacon roots contract. */
export const BEACON_ROOTS_ADDRESS = addr('000f3df6d732807ef1319fb7b8bb8522d0beac02');
/** EIP-2935 history storage contract. */
export const HISTORY_STORAGE_ADDRESS = addr('0000f90827f1c53a10cb7a02335b175320002935');
/** EIP-7002 withdrawal request predeploy. */
export const WITHDRAWAL_QUEUE_ADDRESS = addr('00000961ef480eb55e80d19ad83579a64c007002');
/** EIP-7251 consolidation request predeploy. */
export const CONSOLIDATION_QUEUE_ADDRESS = addr('0000bbddc7ce488642fb579f8b00f3a590007251');
/** The caller of system calls. */
export const SYSTEM_ADDRESS = addr('fffffffffffffffffffffffffffffffffffffffe');
/** The beacon deposit contract of mainnet (EIP-6110), when the chain config names none. */
export const MAINNET_DEPOSIT_CONTRACT = '0x00000000219ab540356cbb839cbe05303d7705fa';

export const DEPOSIT_REQUEST_TYPE = 0x00;
export const WITHDRAWAL_REQUEST_TYPE = 0x01;
export const CONSOLIDATION_REQUEST_TYPE = 0x02;
/** keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)") */
const DEPOSIT_EVENT_TOPIC = '649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5';
/** sha256 of nothing: the requests hash of a block without requests (and of every OP block from Isthmus). */
export const EMPTY_REQUESTS_HASH = Uint8Array.from(
  Buffer.from('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'hex'),
);

const SYSTEM_CALL_GAS = 30_000_000n;

export interface SystemCallResult {
  returnValue: Uint8Array;
  /** The EVM error when the call failed. */
  error: string | undefined;
}

/**
 * A call from the system address outside any transaction: no fees, no nonce, 30M gas, and the system address is
 * not left behind in the state. Returns undefined when `to` has no code (nothing runs).
 */
export async function systemCall(
  executor: Executor,
  env: BlockEnv,
  to: Address,
  data: Uint8Array,
): Promise<SystemCallResult | undefined> {
  const { state, evm } = executor;
  if (state.getCodeSync(to).length === 0) return undefined;
  const existed = state.exists(SYSTEM_ADDRESS);
  state.checkpointSync();
  evm.journal.cleanJournal();
  const result = await evm.runCall({
    block: env.evmBlock,
    gasPrice: 0n,
    origin: SYSTEM_ADDRESS,
    caller: SYSTEM_ADDRESS,
    gasLimit: SYSTEM_CALL_GAS,
    to,
    value: 0n,
    data,
    skipBalance: true,
    skipNonceIncrement: true,
  });
  await evm.journal.cleanup();
  if (!existed && state.exists(SYSTEM_ADDRESS)) state.removeAccount(SYSTEM_ADDRESS);
  state.finishTransaction();
  state.commitSync();
  const exec = result.execResult;
  return { returnValue: exec.returnValue ?? new Uint8Array(0), error: exec.exceptionError?.error };
}

/**
 * EIP-7002 / EIP-7251 dequeue call: the contract must exist and the call must succeed, else the block is invalid.
 * Returns the request data (possibly empty).
 */
export async function dequeueRequests(
  executor: Executor,
  env: BlockEnv,
  to: Address,
  what: string,
): Promise<Uint8Array> {
  const result = await systemCall(executor, env, to, new Uint8Array(0));
  if (result === undefined) {
    throw new TernError('BLOCK_REQUESTS', `${what} request contract ${to.toString()} has no code`);
  }
  if (result.error !== undefined) {
    throw new TernError('BLOCK_REQUESTS', `${what} request system call failed: ${result.error}`);
  }
  return result.returnValue;
}

function word(data: Uint8Array, at: number): bigint {
  if (at + 32 > data.length) return -1n;
  let v = 0n;
  for (let i = at; i < at + 32; i++) v = (v << 8n) | BigInt(data[i] as number);
  return v;
}

/**
 * The request bytes of one EIP-6110 DepositEvent: pubkey(48) ‖ withdrawal credentials(32) ‖ amount(8) ‖
 * signature(96) ‖ index(8). The ABI layout is checked strictly (fixed offsets and sizes), as the EIP requires.
 */
export function depositRequestData(data: Uint8Array): Uint8Array {
  const fields: Array<[offset: bigint, size: bigint]> = [
    [160n, 48n],
    [256n, 32n],
    [320n, 8n],
    [384n, 96n],
    [512n, 8n],
  ];
  if (data.length !== 576) throw new TernError('BLOCK_REQUESTS', `deposit event has ${data.length} bytes, want 576`);
  const out = new Uint8Array(192);
  let pos = 0;
  for (let i = 0; i < fields.length; i++) {
    const [offset, size] = fields[i] as [bigint, bigint];
    if (word(data, i * 32) !== offset) throw new TernError('BLOCK_REQUESTS', `deposit event field ${i}: bad offset`);
    if (word(data, Number(offset)) !== size)
      throw new TernError('BLOCK_REQUESTS', `deposit event field ${i}: bad size`);
    const start = Number(offset) + 32;
    out.set(data.subarray(start, start + Number(size)), pos);
    pos += Number(size);
  }
  return out;
}

/** EIP-6110: the deposit requests of a block, from the deposit contract's DepositEvent logs in order. */
export function depositRequests(logs: readonly Log[], depositContract: string): Uint8Array {
  const contract = depositContract.toLowerCase().replace(/^0x/, '');
  const parts: Uint8Array[] = [];
  for (const log of logs) {
    if (Buffer.from(log.address).toString('hex') !== contract) continue;
    const topic = log.topics[0];
    if (topic === undefined || Buffer.from(topic).toString('hex') !== DEPOSIT_EVENT_TOPIC) continue;
    parts.push(depositRequestData(log.data));
  }
  return new Uint8Array(Buffer.concat(parts));
}

/** EIP-7685: sha256 over sha256(type ‖ data) of each request type with nonempty data, in type order. */
export function requestsHash(requests: ReadonlyArray<readonly [type: number, data: Uint8Array]>): Uint8Array {
  const outer = createHash('sha256');
  for (const [type, data] of requests) {
    if (data.length === 0) continue;
    outer.update(createHash('sha256').update(Uint8Array.of(type)).update(data).digest());
  }
  return new Uint8Array(outer.digest());
}
