// Positional-parameter checks for handlers, with geth's messages: arity errors as geth's argument parser words
// them, and type errors as hexutil / common / rpc types report them from their JSON decoders, prefixed with
// `invalid argument <i>: `. Every failure is a JSON-RPC -32602 invalid params error.
import { invalidParams, type RpcError } from '../../protocol/jsonrpc/errors.js';

/** A decoder failure; `param` turns it into `invalid argument <i>: <message>`. */
export class ParamError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParamError';
  }
}

export type Decoder<T> = (value: unknown) => T;

/**
 * Checks the number of params: at most `max`, and the first `required` present and not null (geth treats a null
 * for a required argument as missing).
 */
export function checkArity(params: readonly unknown[], required: number, max = required): void {
  if (params.length > max) throw invalidParams(`too many arguments, want at most ${max}`);
  for (let i = 0; i < required; i++) {
    if (i >= params.length || params[i] === null) throw invalidParams(`missing value for required argument ${i}`);
  }
}

/** Decodes required param `index`. */
export function param<T>(params: readonly unknown[], index: number, decode: Decoder<T>): T {
  const value = params[index];
  if (value === undefined || value === null) throw invalidParams(`missing value for required argument ${index}`);
  return decodeArg(index, value, decode);
}

/** Decodes optional param `index`: absent or null gives undefined. */
export function optionalParam<T>(params: readonly unknown[], index: number, decode: Decoder<T>): T | undefined {
  const value = params[index];
  if (value === undefined || value === null) return undefined;
  return decodeArg(index, value, decode);
}

function decodeArg<T>(index: number, value: unknown, decode: Decoder<T>): T {
  try {
    return decode(value);
  } catch (err) {
    if (err instanceof ParamError) throw invalidArgument(index, err.message);
    throw err;
  }
}

export function invalidArgument(index: number, message: string): RpcError {
  return invalidParams(`invalid argument ${index}: ${message}`);
}

// ---- hex numbers (hexutil) ------------------------------------------------------------------------------------

const typeError = (what: string, goType: string): ParamError =>
  new ParamError(`json: cannot unmarshal ${what} into Go value of type ${goType}`);

const jsonKind = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return typeof v === 'boolean' ? 'bool' : typeof v;
};

const has0x = (s: string): boolean => s.length >= 2 && s[0] === '0' && (s[1] === 'x' || s[1] === 'X');
const HEX_DIGITS = /^[0-9a-fA-F]*$/;

/** hexutil's checkNumberText: the digits of a 0x quantity, or a hexutil error message. */
function quantityDigits(s: string): string {
  if (s.length === 0) return ''; // hexutil accepts "" as zero
  if (!has0x(s)) throw new ParamError('hex string without 0x prefix');
  const digits = s.slice(2);
  if (digits.length === 0) throw new ParamError('hex string "0x"');
  if (digits.length > 1 && digits[0] === '0') throw new ParamError('hex number with leading zero digits');
  return digits;
}

function decodeQuantityAs(value: unknown, goType: string, maxDigits: number, rangeMsg: string): bigint {
  if (typeof value !== 'string') throw typeError('non-string', goType);
  let digits: string;
  try {
    digits = quantityDigits(value);
  } catch (err) {
    throw typeError((err as Error).message, goType);
  }
  if (digits.length > maxDigits) throw typeError(rangeMsg, goType);
  if (!HEX_DIGITS.test(digits)) throw typeError('invalid hex string', goType);
  return digits.length === 0 ? 0n : BigInt(`0x${digits}`);
}

/** A 256-bit quantity (`0x…`, no leading zeros): hexutil.Big. */
export const decodeQuantity: Decoder<bigint> = (v) => decodeQuantityAs(v, '*hexutil.Big', 64, 'hex number > 256 bits');

/** A 64-bit quantity: hexutil.Uint64. */
export const decodeUint64: Decoder<bigint> = (v) => decodeQuantityAs(v, 'hexutil.Uint64', 16, 'hex number > 64 bits');

/** A 64-bit quantity that must fit a JS number (counts, indexes): hexutil.Uint. */
export const decodeUint: Decoder<number> = (v) => {
  const n = decodeQuantityAs(v, 'hexutil.Uint', 16, 'hex number > 64 bits');
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw typeError('hex number > 53 bits', 'hexutil.Uint');
  return Number(n);
};

// ---- hex data ---------------------------------------------------------------------------------------------------

/** Byte data `0x…` of even length (hexutil.Bytes); "" is empty data. */
export const decodeData: Decoder<Uint8Array> = (v) => {
  const goType = 'hexutil.Bytes';
  if (typeof v !== 'string') throw typeError('non-string', goType);
  if (v.length === 0) return new Uint8Array(0);
  if (!has0x(v)) throw typeError('hex string without 0x prefix', goType);
  const hex = v.slice(2);
  if (hex.length % 2 !== 0) throw typeError('hex string of odd length', goType);
  if (!HEX_DIGITS.test(hex)) throw typeError('invalid hex string', goType);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
};

function decodeFixed(v: unknown, bytes: number, goType: string): `0x${string}` {
  if (typeof v !== 'string') throw typeError('non-string', goType);
  let hex = v;
  if (v.length > 0) {
    if (!has0x(v)) throw typeError('hex string without 0x prefix', goType);
    hex = v.slice(2);
    if (hex.length % 2 !== 0) throw typeError('hex string of odd length', goType);
  }
  if (hex.length !== bytes * 2) {
    throw new ParamError(`hex string has length ${hex.length}, want ${bytes * 2} for ${goType}`);
  }
  if (!HEX_DIGITS.test(hex)) throw typeError('invalid hex string', goType);
  return `0x${hex.toLowerCase()}`;
}

/** A 20-byte address; returned lower-case with 0x (the checksum case is not checked, as in geth). */
export const decodeAddress: Decoder<`0x${string}`> = (v) => decodeFixed(v, 20, 'common.Address');

/** A 32-byte hash; returned lower-case with 0x. */
export const decodeHash: Decoder<`0x${string}`> = (v) => decodeFixed(v, 32, 'common.Hash');

// ---- blocks -----------------------------------------------------------------------------------------------------

export type BlockTag = 'earliest' | 'latest' | 'pending' | 'safe' | 'finalized';
/** A block tag or a block number. */
export type BlockNumberParam = BlockTag | bigint;

const BLOCK_TAGS: ReadonlySet<string> = new Set<BlockTag>(['earliest', 'latest', 'pending', 'safe', 'finalized']);
const MAX_INT64 = (1n << 63n) - 1n;

/** hexutil.DecodeUint64 (no "" allowed, unlike the JSON decoder). */
function decodeUint64Text(s: string): bigint {
  if (s.length === 0) throw new ParamError('empty hex string');
  const digits = quantityDigits(s);
  if (!HEX_DIGITS.test(digits)) throw new ParamError('invalid hex string');
  if (digits.length > 16) throw new ParamError('hex number > 64 bits');
  return BigInt(`0x${digits}`);
}

/** rpc.BlockNumber: a tag or a hex number up to int64 (geth also accepts it unquoted). */
export const decodeBlockNumber: Decoder<BlockNumberParam> = (v) => {
  const input = typeof v === 'string' ? v : JSON.stringify(v);
  if (BLOCK_TAGS.has(input)) return input as BlockTag;
  const n = decodeUint64Text(input.trim());
  if (n > MAX_INT64) throw new ParamError('block number larger than int64');
  return n;
};

/** EIP-1898 block selector: a number or tag, or a block hash (optionally requiring it canonical). */
export type BlockNumberOrHash =
  | { blockNumber: BlockNumberParam; blockHash?: undefined; requireCanonical: false }
  | { blockNumber?: undefined; blockHash: `0x${string}`; requireCanonical: boolean };

/**
 * rpc.BlockNumberOrHash: a tag, a hex number, a 32-byte hash string, or an object with exactly one of
 * `blockNumber` / `blockHash` (and optional `requireCanonical`).
 */
export const decodeBlockNumberOrHash: Decoder<BlockNumberOrHash> = (v) => {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const hasNumber = o.blockNumber !== undefined && o.blockNumber !== null;
    const hasHash = o.blockHash !== undefined && o.blockHash !== null;
    if (hasNumber && hasHash) {
      throw new ParamError('cannot specify both BlockHash and BlockNumber, choose one or the other');
    }
    if (!hasNumber && !hasHash) throw new ParamError('must specify either BlockHash or BlockNumber');
    const rc = o.requireCanonical;
    if (rc !== undefined && rc !== null && typeof rc !== 'boolean') {
      throw new ParamError(
        `json: cannot unmarshal ${jsonKind(rc)} into Go struct field .requireCanonical of type bool`,
      );
    }
    if (hasNumber) return { blockNumber: decodeBlockNumber(o.blockNumber), requireCanonical: false };
    return { blockHash: decodeHash(o.blockHash), requireCanonical: rc === true };
  }
  if (typeof v !== 'string') throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
  if (BLOCK_TAGS.has(v)) return { blockNumber: v as BlockTag, requireCanonical: false };
  if (v.length === 66) return { blockHash: decodeHash(v), requireCanonical: false };
  const n = decodeUint64Text(v);
  if (n > MAX_INT64) throw new ParamError('blocknumber too high');
  return { blockNumber: n, requireCanonical: false };
};

// ---- small scalars ------------------------------------------------------------------------------------------

export const decodeBool: Decoder<boolean> = (v) => {
  if (typeof v !== 'boolean') throw typeError(jsonKind(v), 'bool');
  return v;
};

export const decodeString: Decoder<string> = (v) => {
  if (typeof v !== 'string') throw typeError(jsonKind(v), 'string');
  return v;
};

/** A JSON object (a transaction call object, a filter, payload attributes…), checked field by field by the caller. */
export const decodeObject: Decoder<Record<string, unknown>> = (v) => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw typeError(jsonKind(v), 'struct');
  return v as Record<string, unknown>;
};

/** An array whose items are decoded with `item` (an item's error names its position). */
export function decodeArray<T>(item: Decoder<T>): Decoder<T[]> {
  return (v) => {
    if (!Array.isArray(v)) throw typeError(jsonKind(v), 'slice');
    return v.map((x, i) => {
      try {
        return item(x);
      } catch (err) {
        if (err instanceof ParamError) throw new ParamError(`${err.message} (item ${i})`);
        throw err;
      }
    });
  };
}

// ---- encoding helpers for results ---------------------------------------------------------------------------

/** A quantity as JSON-RPC sends it: `0x` + hex without leading zeros (`0x0` for zero). */
export function toQuantity(n: bigint | number): `0x${string}` {
  if (typeof n === 'number' && (!Number.isSafeInteger(n) || n < 0)) throw new RangeError(`not a quantity: ${n}`);
  if (typeof n === 'bigint' && n < 0n) throw new RangeError(`not a quantity: ${n}`);
  return `0x${n.toString(16)}`;
}
