// Shared formatting of tracer output in geth's JSON shapes: opcode names as geth prints them, hex words, and the
// EVM error text geth uses (core/vm/errors.go), extending the wording the call runner already maps.
import { vmErrorMessage } from '../evm/call.js';

const hexChars = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** `0x`-prefixed hex of bytes (hexutil.Bytes). */
export const hexBytes = (b: Uint8Array): string => `0x${hexChars(b)}`;

/** Hex of bytes without a prefix (Go's %x). */
export const plainHex = hexChars;

/** A quantity as hexutil prints it: `0x0`, `0x5208`. */
export const hexQuantity = (n: bigint | number): string => `0x${n.toString(16)}`;

/** A 256-bit word as 64 hex digits without a prefix (the struct logger's storage keys and values). */
export const word64 = (n: bigint): string => n.toString(16).padStart(64, '0');

/** A 256-bit word as 32 big-endian bytes. */
export function wordBytes(n: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(word64(n), 'hex'));
}

/** An address held in a stack word, as geth prints common.Address (lower-case hex). */
export const wordAddress = (n: bigint): string => `0x${(n & ((1n << 160n) - 1n)).toString(16).padStart(40, '0')}`;

/** ethereumjs names that geth spells differently (0x44 keeps its Frontier name in geth's table). */
const GETH_NAMES: Readonly<Record<string, string>> = { PREVRANDAO: 'DIFFICULTY' };

/** geth's OpCode.String(): the mnemonic, or `opcode 0x.. not defined`. */
export function opName(code: number, name: string): string {
  if (name === 'INVALID' && code !== 0xfe) return `opcode 0x${code.toString(16)} not defined`;
  return GETH_NAMES[name] ?? name;
}

/** ethereumjs errors geth words otherwise and the call runner does not map. */
const EXTRA: Readonly<Record<string, string>> = {
  'stack underflow': 'stack underflow',
  'invalid opcode': 'invalid opcode',
  'invalid JUMPSUB': 'invalid jump destination',
};

/** The message geth gives for an EVM error of ethereumjs. */
export function vmError(error: string): string {
  return EXTRA[error] ?? vmErrorMessage(error);
}
