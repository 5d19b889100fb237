// The benchmark chain's contracts, written in EVM assembly (src/main/devnet/asm.ts): a minimal ERC-20 with Solidity's
// storage layout (balances mapping at slot 0) and event, and a compute-bound contract looping over keccak and
// modular arithmetic, and a storage-bound contract reading and writing many slots. Plus the EIP-4788 beacon-roots contract code that every Cancun chain carries.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { type AsmItem, assemble } from '../../src/main/devnet/asm.js';

/** keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = BigInt(
  `0x${Buffer.from(keccak_256(new TextEncoder().encode('Transfer(address,address,uint256)'))).toString('hex')}`,
);
export const SELECTOR_TRANSFER = 0xa9059cbb;
export const SELECTOR_BALANCE_OF = 0x70a08231;
const ADDRESS_MASK = (1n << 160n) - 1n;
/** 2^255 - 19, the modulus of the compute loop. */
const P = (1n << 255n) - 19n;

/**
 * ERC-20 `transfer(address,uint256)` and `balanceOf(address)`: balances at keccak256(holder ‖ 0) as Solidity lays
 * out `mapping(address => uint256)` at slot 0; a transfer checks the balance, writes both slots, emits
 * `Transfer(from, to, amount)` (LOG3) and returns true. Anything else reverts.
 */
const ERC20: AsmItem[] = [
  ['PUSH', 0],
  'CALLDATALOAD',
  ['PUSH', 0xe0],
  'SHR',
  'DUP1',
  ['PUSH', SELECTOR_TRANSFER],
  'EQ',
  ['ref', 'transfer'],
  'JUMPI',
  'DUP1',
  ['PUSH', SELECTOR_BALANCE_OF],
  'EQ',
  ['ref', 'balanceOf'],
  'JUMPI',
  ['ref', 'fail'],
  'JUMP',

  ['label', 'balanceOf'],
  'POP',
  ['PUSH', 4],
  'CALLDATALOAD',
  ['PUSH', 0],
  'MSTORE',
  ['PUSH', 0],
  ['PUSH', 0x20],
  'MSTORE',
  ['PUSH', 0x40],
  ['PUSH', 0],
  'KECCAK256',
  'SLOAD',
  ['PUSH', 0],
  'MSTORE',
  ['PUSH', 0x20],
  ['PUSH', 0],
  'RETURN',

  ['label', 'transfer'],
  'POP',
  ['PUSH', 68],
  'CALLDATASIZE',
  'LT',
  ['ref', 'fail'],
  'JUMPI',
  ['PUSH', 4],
  'CALLDATALOAD',
  ['PUSH', ADDRESS_MASK],
  'AND', // [to]
  ['PUSH', 0x24],
  'CALLDATALOAD', // [to, amount]
  'CALLER',
  ['PUSH', 0],
  'MSTORE',
  ['PUSH', 0],
  ['PUSH', 0x20],
  'MSTORE',
  ['PUSH', 0x40],
  ['PUSH', 0],
  'KECCAK256', // [to, amount, fromSlot]
  'DUP1',
  'SLOAD', // [to, amount, fromSlot, fromBalance]
  'DUP1',
  'DUP4',
  'GT', // amount > fromBalance
  ['ref', 'fail'],
  'JUMPI',
  'DUP3',
  'SWAP1',
  'SUB', // [to, amount, fromSlot, fromBalance - amount]
  'SWAP1',
  'SSTORE', // [to, amount]
  'DUP2',
  ['PUSH', 0],
  'MSTORE',
  ['PUSH', 0x40],
  ['PUSH', 0],
  'KECCAK256', // [to, amount, toSlot]
  'DUP1',
  'SLOAD',
  'DUP3',
  'ADD',
  'SWAP1',
  'SSTORE', // [to, amount]
  ['PUSH', 0],
  'MSTORE', // mem[0] = amount; [to]
  'CALLER',
  ['PUSHN', 32, TRANSFER_TOPIC],
  ['PUSH', 0x20],
  ['PUSH', 0],
  'LOG3', // topics: Transfer, from, to
  ['PUSH', 1],
  ['PUSH', 0],
  'MSTORE',
  ['PUSH', 0x20],
  ['PUSH', 0],
  'RETURN',

  ['label', 'fail'],
  ['PUSH', 0],
  'DUP1',
  'REVERT',
];

/**
 * Calldata `n ‖ seed` (two words, n ≥ 1): n rounds of acc = (h² mod P + (h xor i)) mod P with h = keccak256(acc),
 * i counting down from n; the result is stored at slot CALLER and returned. About 132 gas per round.
 */
const COMPUTE: AsmItem[] = [
  ['PUSH', 0],
  'CALLDATALOAD',
  'DUP1',
  'ISZERO',
  ['ref', 'fail'],
  'JUMPI',
  ['PUSH', 0x20],
  'CALLDATALOAD', // [n, acc]
  ['label', 'loop'],
  ['PUSH', 0],
  'MSTORE', // [n]
  ['PUSH', 0x20],
  ['PUSH', 0],
  'KECCAK256', // [n, h]
  ['PUSHN', 32, P],
  'DUP2',
  'DUP1',
  'MULMOD', // [n, h, h*h % P]
  'SWAP1',
  'DUP3',
  'XOR', // [n, m, h ^ n]
  ['PUSHN', 32, P],
  'SWAP2',
  'ADDMOD', // [n, acc']
  'SWAP1',
  ['PUSH', 1],
  'SWAP1',
  'SUB', // [acc', n - 1]
  'DUP1',
  'ISZERO',
  ['ref', 'done'],
  'JUMPI',
  'SWAP1', // [n - 1, acc']
  ['ref', 'loop'],
  'JUMP',
  ['label', 'done'],
  'POP', // [acc]
  'DUP1',
  'CALLER',
  'SSTORE',
  ['PUSH', 0],
  'MSTORE',
  ['PUSH', 0x20],
  ['PUSH', 0],
  'RETURN',
  ['label', 'fail'],
  ['PUSH', 0],
  'DUP1',
  'REVERT',
];

/**
 * Calldata `n ‖ seed` (two words, n ≥ 1): n rounds over slots s = (seed + i·0x9e37) mod 4096, i counting down from
 * n: v = SLOAD(s) + SLOAD(s xor 0x800) + i, SSTORE(s, v). Many distinct slots per call, cold and warm reads, fresh
 * and rewritten writes; the workload calls several copies at different addresses, so many accounts too.
 */
const STORAGE: AsmItem[] = [
  ['PUSH', 0],
  'CALLDATALOAD', // [n]
  'DUP1',
  'ISZERO',
  ['ref', 'fail'],
  'JUMPI',
  ['label', 'loop'], // [n]
  ['PUSH', 0x20],
  'CALLDATALOAD',
  'DUP2',
  ['PUSH', 0x9e37],
  'MUL',
  'ADD',
  ['PUSH', 0xfff],
  'AND', // [n, s]
  'DUP1',
  'SLOAD', // [n, s, a]
  'DUP2',
  ['PUSH', 0x800],
  'XOR',
  'SLOAD', // [n, s, a, b]
  'ADD',
  'DUP3',
  'ADD', // [n, s, v]
  'SWAP1',
  'SSTORE', // [n]
  ['PUSH', 1],
  'SWAP1',
  'SUB', // [n - 1]
  'DUP1',
  ['ref', 'loop'],
  'JUMPI',
  'STOP',
  ['label', 'fail'],
  ['PUSH', 0],
  'DUP1',
  'REVERT',
];

export const ERC20_CODE = assemble(ERC20);
export const STORAGE_CODE = assemble(STORAGE);
export const COMPUTE_CODE = assemble(COMPUTE);
/** Gas of one round of the compute loop (JUMPDEST through the back jump). */
export const COMPUTE_GAS_PER_ROUND = 132;

/** EIP-4788's beacon-roots contract (the runtime code the EIP specifies), at 0x000F3df6…Beac02. */
export const BEACON_ROOTS_ADDRESS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02';
export const BEACON_ROOTS_CODE = Uint8Array.from(
  Buffer.from(
    '3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500',
    'hex',
  ),
);

/** The storage slot of `holder`'s balance in ERC20_CODE: keccak256(pad32(holder) ‖ pad32(0)). */
export function erc20BalanceSlot(holder: Uint8Array): Uint8Array {
  const pre = new Uint8Array(64);
  pre.set(holder, 12);
  return keccak_256(pre);
}

function word(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let x = v;
  for (let i = 31; i >= 0 && x > 0n; i--, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
}

export function erc20TransferData(to: Uint8Array, amount: bigint): Uint8Array {
  const out = new Uint8Array(68);
  new DataView(out.buffer).setUint32(0, SELECTOR_TRANSFER);
  out.set(to, 16);
  out.set(word(amount), 36);
  return out;
}

export function erc20BalanceOfData(holder: Uint8Array): Uint8Array {
  const out = new Uint8Array(36);
  new DataView(out.buffer).setUint32(0, SELECTOR_BALANCE_OF);
  out.set(holder, 16);
  return out;
}

/** Calldata of the storage contract: `rounds ‖ seed`. */
export const storageData = (rounds: number, seed: bigint): Uint8Array => computeData(rounds, seed);

export function computeData(rounds: number, seed: bigint): Uint8Array {
  const out = new Uint8Array(64);
  out.set(word(BigInt(rounds)), 0);
  out.set(word(seed), 32);
  return out;
}
