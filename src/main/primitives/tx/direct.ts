// Legacy, EIP-2930 and EIP-1559 transactions read straight from their encoding: one pass over the bytes with a
// cursor, integers read in place, byte strings copied once, no intermediate RLP tree. It accepts only what the
// general decoder (./decode.ts) accepts — canonical RLP, the exact field count, nothing trailing, the same field
// rules — and gives up (undefined) on anything else, so the general decoder gives every refusal its own error.
import { Address } from '@ethereumjs/util';
import { keccak256 } from '../../native/keccak.js';
import type { DecodedTx } from './decode.js';
import { legacyChainId } from './eip155.js';

interface BufferHex {
  hexSlice(this: Uint8Array, start: number, end: number): string;
}
const { hexSlice } = Buffer.prototype as unknown as BufferHex;

/** Thrown inside this module only: the input is not one this reader accepts. */
class GiveUp extends Error {}
const GIVE_UP = new GiveUp();

/** The reader's cursor and the last string item's bounds (one decode at a time: the coordinator is one thread). */
const EMPTY = new Uint8Array(0);
let data: Uint8Array = EMPTY;
let pos = 0;
let start = 0;
let end = 0;

/** A big-endian length of `n` bytes at `at`, canonical (no leading zero). */
function length(at: number, n: number): number {
  if (data[at] === 0) throw GIVE_UP;
  let len = 0;
  for (let i = 0; i < n; i++) len = len * 256 + (data[at + i] as number);
  return len;
}

/** Reads a string item ending by `limit` into [start, end). */
function str(limit: number): void {
  if (pos >= limit) throw GIVE_UP;
  const first = data[pos] as number;
  if (first <= 0x7f) {
    start = pos;
    end = pos + 1;
  } else if (first <= 0xb7) {
    start = pos + 1;
    end = start + (first - 0x80);
    if (end > limit || (first === 0x81 && (data[start] as number) < 0x80)) throw GIVE_UP;
  } else if (first <= 0xbf) {
    const n = first - 0xb7;
    if (pos + 1 + n >= limit) throw GIVE_UP;
    const len = length(pos + 1, n);
    if (len <= 55) throw GIVE_UP;
    start = pos + 1 + n;
    end = start + len;
    if (end > limit) throw GIVE_UP;
  } else throw GIVE_UP;
  pos = end;
}

/** Reads a list header ending by `limit`; returns the end of its payload (the cursor is at its first item). */
function list(limit: number): number {
  if (pos >= limit) throw GIVE_UP;
  const first = data[pos] as number;
  let payloadEnd: number;
  if (first < 0xc0) throw GIVE_UP;
  if (first <= 0xf7) {
    pos += 1;
    payloadEnd = pos + (first - 0xc0);
  } else {
    const n = first - 0xf7;
    if (pos + 1 + n > limit) throw GIVE_UP;
    const len = length(pos + 1, n);
    if (len < 56) throw GIVE_UP;
    pos += 1 + n;
    payloadEnd = pos + len;
  }
  if (payloadEnd > limit) throw GIVE_UP;
  return payloadEnd;
}

/** An RLP integer (canonical: no leading zero; empty is 0). */
function int(limit: number): bigint {
  str(limit);
  const n = end - start;
  if (n === 0) return 0n;
  if (data[start] === 0) throw GIVE_UP;
  if (n <= 6) {
    let v = 0;
    for (let i = start; i < end; i++) v = v * 256 + (data[i] as number);
    return BigInt(v);
  }
  return BigInt(`0x${hexSlice.call(data, start, end)}`);
}

/** A byte string, copied. */
function bytes(limit: number): Uint8Array {
  str(limit);
  const out = new Uint8Array(end - start);
  out.set(data.subarray(start, end));
  return out;
}

/** The recipient: empty (a creation) or 20 bytes. */
function to(limit: number): Address | undefined {
  str(limit);
  if (end === start) return undefined;
  if (end - start !== 20) throw GIVE_UP;
  const out = new Uint8Array(20);
  out.set(data.subarray(start, end));
  return new Address(out);
}

/** An EIP-2930 access list: [[address (20 bytes), [key (32 bytes), …]], …]. */
function accessList(limit: number): Array<readonly [Uint8Array, Uint8Array[]]> {
  const listEnd = list(limit);
  const out: Array<readonly [Uint8Array, Uint8Array[]]> = [];
  while (pos < listEnd) {
    const entryEnd = list(listEnd);
    const address = bytes(entryEnd);
    if (address.length !== 20) throw GIVE_UP;
    const keysEnd = list(entryEnd);
    const keys: Uint8Array[] = [];
    while (pos < keysEnd) {
      const key = bytes(keysEnd);
      if (key.length !== 32) throw GIVE_UP;
      keys.push(key);
    }
    if (pos !== entryEnd) throw GIVE_UP; // exactly [address, keys]
    out.push([address, keys]);
  }
  return out;
}

/** Decodes a legacy, type-1 or type-2 transaction, or returns undefined (other types, anything malformed). */
export function decodeDirect(raw: Uint8Array): DecodedTx | undefined {
  if (raw.length === 0) return undefined;
  const type = raw[0] as number;
  if (type !== 1 && type !== 2 && type < 0xc0) return undefined;
  data = raw;
  pos = type >= 0xc0 ? 0 : 1;
  try {
    return type >= 0xc0 ? legacy(raw) : typed(raw, type);
  } catch (err) {
    if (err === GIVE_UP) return undefined;
    throw err;
  } finally {
    data = EMPTY; // the reader keeps no block's bytes alive
  }
}

function legacy(raw: Uint8Array): DecodedTx {
  const total = raw.length;
  const fieldsEnd = list(total);
  if (fieldsEnd !== total) throw GIVE_UP;
  const nonce = int(fieldsEnd);
  const gasPrice = int(fieldsEnd);
  const gasLimit = int(fieldsEnd);
  const recipient = to(fieldsEnd);
  const value = int(fieldsEnd);
  const input = bytes(fieldsEnd);
  const v = int(fieldsEnd);
  const r = int(fieldsEnd);
  const s = int(fieldsEnd);
  if (pos !== fieldsEnd) throw GIVE_UP;
  return {
    type: 0,
    chainId: legacyChainId(v),
    nonce,
    gasPrice,
    gasLimit,
    to: recipient,
    value,
    data: input,
    v,
    r,
    s,
    hash: keccak256(raw),
    raw,
  };
}

function typed(raw: Uint8Array, type: number): DecodedTx {
  const total = raw.length;
  const fieldsEnd = list(total);
  if (fieldsEnd !== total) throw GIVE_UP;
  const chainId = int(fieldsEnd);
  const nonce = int(fieldsEnd);
  // The fee fields are where the two types differ; the fields after them are the same.
  const gasPrice = type === 1 ? int(fieldsEnd) : 0n;
  const maxPriorityFeePerGas = type === 2 ? int(fieldsEnd) : 0n;
  const maxFeePerGas = type === 2 ? int(fieldsEnd) : 0n;
  const gasLimit = int(fieldsEnd);
  const recipient = to(fieldsEnd);
  const value = int(fieldsEnd);
  const input = bytes(fieldsEnd);
  const items = accessList(fieldsEnd);
  const v = int(fieldsEnd);
  const r = int(fieldsEnd);
  const s = int(fieldsEnd);
  if (pos !== fieldsEnd) throw GIVE_UP;
  const hash = keccak256(raw);
  // One object literal per type: the same fields, in the same order, as the general decoder's.
  if (type === 1) {
    return {
      type,
      chainId,
      nonce,
      v,
      r,
      s,
      hash,
      raw,
      gasPrice,
      gasLimit,
      to: recipient,
      value,
      data: input,
      accessList: items,
    };
  }
  return {
    type,
    chainId,
    nonce,
    v,
    r,
    s,
    hash,
    raw,
    maxPriorityFeePerGas,
    maxFeePerGas,
    gasLimit,
    to: recipient,
    value,
    data: input,
    accessList: items,
  };
}
