// The per-transaction `tx_datas` entry of a span batch (delta/span-batches.md, isthmus/derivation.md) and the
// conversion between it plus the span batch's column fields and a full EIP-2718 signed transaction:
//   legacy: rlp([value, gasPrice, data])
//   0x01 ++ rlp([value, gasPrice, data, accessList])
//   0x02 ++ rlp([value, maxPriorityFeePerGas, maxFeePerGas, data, accessList])
//   0x04 ++ rlp([value, maxPriorityFeePerGas, maxFeePerGas, data, accessList, authorizationList])   (Isthmus)
import { bigintToBytes, type RlpDecoded, type RlpInput, rlpDecode, rlpEncode } from '../../primitives/rlp.js';
import { decodeTransaction } from '../../primitives/tx/decode.js';
import { batchError } from './bytes.js';

export const LEGACY_TX_TYPE = 0;

/** Decoded tx_data; integers and lists are kept as their canonical RLP items so re-encoding is exact. */
export interface SpanTxData {
  readonly type: 0 | 1 | 2 | 4;
  readonly value: Uint8Array;
  /** Legacy and type 1. */
  readonly gasPrice?: Uint8Array;
  /** Types 2 and 4. */
  readonly maxPriorityFeePerGas?: Uint8Array;
  readonly maxFeePerGas?: Uint8Array;
  readonly data: Uint8Array;
  /** Types 1, 2, 4. */
  readonly accessList?: RlpDecoded[];
  /** Type 4. */
  readonly authorizationList?: RlpDecoded[];
}

const FIELDS: Record<number, number> = { 0: 3, 1: 4, 2: 5, 4: 6 };

function u256(item: RlpDecoded | undefined, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) return batchError(`span batch tx: ${what} must be bytes`);
  if (item.length > 32) batchError(`span batch tx: ${what} exceeds 256 bits`);
  if (item.length > 0 && item[0] === 0) batchError(`span batch tx: ${what} has a leading zero`);
  return item;
}

function list(item: RlpDecoded | undefined, what: string): RlpDecoded[] {
  if (!Array.isArray(item)) return batchError(`span batch tx: ${what} must be a list`);
  return item;
}

function bytes(item: RlpDecoded | undefined, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) return batchError(`span batch tx: ${what} must be bytes`);
  return item;
}

function accessList(item: RlpDecoded | undefined): RlpDecoded[] {
  const l = list(item, 'accessList');
  for (const e of l) {
    const entry = list(e, 'access list entry');
    if (entry.length !== 2) batchError('span batch tx: access list entry must be [address, storageKeys]');
    if (bytes(entry[0], 'access list address').length !== 20) batchError('span batch tx: access list address');
    for (const k of list(entry[1], 'storage keys')) {
      if (bytes(k, 'storage key').length !== 32) batchError('span batch tx: storage key must be 32 bytes');
    }
  }
  return l;
}

function authorizationList(item: RlpDecoded | undefined): RlpDecoded[] {
  const l = list(item, 'authorizationList');
  for (const a of l) {
    const t = list(a, 'authorization');
    if (t.length !== 6) batchError('span batch tx: authorization must have 6 fields');
    u256(t[0], 'authorization chainId');
    if (bytes(t[1], 'authorization address').length !== 20) batchError('span batch tx: authorization address');
    if (bytes(t[2], 'authorization nonce').length > 8) batchError('span batch tx: authorization nonce exceeds 64 bits');
    u256(t[3], 'authorization yParity');
    u256(t[4], 'authorization r');
    u256(t[5], 'authorization s');
  }
  return l;
}

/** Decodes one tx_data entry (type byte, if any, included). Throws BATCH_INVALID. */
export function decodeSpanTxData(raw: Uint8Array): SpanTxData {
  if (raw.length === 0) batchError('span batch tx: empty tx data');
  const first = raw[0] as number;
  const type = first <= 0x7f ? first : 0;
  if (type !== 0 && type !== 1 && type !== 2 && type !== 4) batchError(`span batch tx: invalid tx type ${type}`);
  let f: RlpDecoded;
  try {
    f = rlpDecode(type === 0 ? raw : raw.subarray(1));
  } catch (err) {
    return batchError(`span batch tx: ${err instanceof Error ? err.message : String(err)}`);
  }
  const fields = list(f, 'tx data');
  if (fields.length !== FIELDS[type]) batchError(`span batch tx: type ${type} has ${fields.length} fields`);
  switch (type) {
    case 0:
      return {
        type,
        value: u256(fields[0], 'value'),
        gasPrice: u256(fields[1], 'gasPrice'),
        data: bytes(fields[2], 'data'),
      };
    case 1:
      return {
        type,
        value: u256(fields[0], 'value'),
        gasPrice: u256(fields[1], 'gasPrice'),
        data: bytes(fields[2], 'data'),
        accessList: accessList(fields[3]),
      };
    default:
      return {
        type,
        value: u256(fields[0], 'value'),
        maxPriorityFeePerGas: u256(fields[1], 'maxPriorityFeePerGas'),
        maxFeePerGas: u256(fields[2], 'maxFeePerGas'),
        data: bytes(fields[3], 'data'),
        accessList: accessList(fields[4]),
        ...(type === 4 ? { authorizationList: authorizationList(fields[5]) } : {}),
      };
  }
}

function typed(type: number, body: Uint8Array): Uint8Array {
  if (type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

export function encodeSpanTxData(d: SpanTxData): Uint8Array {
  const items: RlpInput[] =
    d.type === 0 || d.type === 1
      ? [d.value, d.gasPrice, d.data, ...(d.type === 1 ? [d.accessList as RlpInput] : [])]
      : [
          d.value,
          d.maxPriorityFeePerGas,
          d.maxFeePerGas,
          d.data,
          d.accessList as RlpInput,
          ...(d.type === 4 ? [d.authorizationList as RlpInput] : []),
        ];
  return typed(d.type, rlpEncode(items));
}

export interface SpanTxColumns {
  readonly nonce: bigint;
  readonly gas: bigint;
  /** 20 bytes, or undefined for contract creation. */
  readonly to: Uint8Array | undefined;
  readonly v: bigint;
  readonly r: Uint8Array;
  readonly s: Uint8Array;
}

/** Strips leading zero bytes, so a 32-byte word is a canonical RLP integer. */
function trim(word: Uint8Array): Uint8Array {
  let i = 0;
  while (i < word.length && word[i] === 0) i++;
  return word.subarray(i);
}

/** Rebuilds the signed EIP-2718 transaction (chain id from the rollup config for typed transactions). */
export function toFullTx(d: SpanTxData, c: SpanTxColumns, chainId: bigint): Uint8Array {
  const to = c.to ?? new Uint8Array(0);
  const r = trim(c.r);
  const s = trim(c.s);
  switch (d.type) {
    case 0:
      return rlpEncode([c.nonce, d.gasPrice, c.gas, to, d.value, d.data, c.v, r, s]);
    case 1:
      return typed(
        1,
        rlpEncode([chainId, c.nonce, d.gasPrice, c.gas, to, d.value, d.data, d.accessList as RlpInput, c.v, r, s]),
      );
    case 2:
      return typed(
        2,
        rlpEncode([
          chainId,
          c.nonce,
          d.maxPriorityFeePerGas,
          d.maxFeePerGas,
          c.gas,
          to,
          d.value,
          d.data,
          d.accessList as RlpInput,
          c.v,
          r,
          s,
        ]),
      );
    case 4:
      if (c.to === undefined) batchError('span batch tx: SetCode transaction cannot create a contract');
      return typed(
        4,
        rlpEncode([
          chainId,
          c.nonce,
          d.maxPriorityFeePerGas,
          d.maxFeePerGas,
          c.gas,
          to,
          d.value,
          d.data,
          d.accessList as RlpInput,
          d.authorizationList as RlpInput,
          c.v,
          r,
          s,
        ]),
      );
  }
}

/** The span-batch form of a signed transaction: its tx_data and column values (batcher side). */
export interface SpanTxParts {
  readonly txData: SpanTxData;
  readonly nonce: bigint;
  readonly gas: bigint;
  readonly to: Uint8Array | undefined;
  readonly yParity: number;
  /** Legacy only: EIP-155 protected. */
  readonly protected: boolean;
  /** 32 bytes each. */
  readonly r: Uint8Array;
  readonly s: Uint8Array;
}

function word(n: bigint): Uint8Array {
  const b = bigintToBytes(n);
  if (b.length > 32) batchError('span batch tx: signature value exceeds 256 bits');
  const out = new Uint8Array(32);
  out.set(b, 32 - b.length);
  return out;
}

const enc = (n: bigint | undefined) => bigintToBytes(n ?? 0n);

/** Splits a signed transaction into span-batch parts; a protected transaction must be for `chainId`. */
export function fromFullTx(raw: Uint8Array, chainId: bigint): SpanTxParts {
  let tx: ReturnType<typeof decodeTransaction>;
  try {
    tx = decodeTransaction(raw);
  } catch (err) {
    return batchError(`span batch tx: cannot decode transaction: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (tx.type !== 0 && tx.type !== 1 && tx.type !== 2 && tx.type !== 4) {
    batchError(`span batch tx: transaction type ${tx.type} cannot be batched`);
  }
  const isProtected = tx.type !== 0 || (tx.v !== 27n && tx.v !== 28n);
  if (isProtected && tx.chainId !== chainId) {
    batchError(`span batch tx: transaction chain id ${tx.chainId} is not ${chainId}`);
  }
  let yParity: bigint;
  if (tx.type === 0) yParity = isProtected ? (tx.v - 35n) & 1n : tx.v - 27n;
  else yParity = tx.v;
  if (yParity !== 0n && yParity !== 1n) batchError(`span batch tx: invalid signature v ${tx.v}`);
  const al = () => (tx.accessList ?? []).map(([a, keys]) => [a, [...keys]]) as RlpDecoded[];
  const base = { value: enc(tx.value), data: tx.data };
  let txData: SpanTxData;
  if (tx.type === 0) txData = { type: 0, ...base, gasPrice: enc(tx.gasPrice) };
  else if (tx.type === 1) txData = { type: 1, ...base, gasPrice: enc(tx.gasPrice), accessList: al() };
  else {
    txData = {
      type: tx.type as 2 | 4,
      ...base,
      maxPriorityFeePerGas: enc(tx.maxPriorityFeePerGas),
      maxFeePerGas: enc(tx.maxFeePerGas),
      accessList: al(),
      ...(tx.type === 4 ? { authorizationList: (tx.authorizationList ?? []).map((a) => [...a]) as RlpDecoded[] } : {}),
    };
  }
  return {
    txData,
    nonce: tx.nonce,
    gas: tx.gasLimit,
    to: tx.to === undefined ? undefined : tx.to.bytes,
    yParity: Number(yParity),
    protected: tx.type === 0 && isProtected,
    r: word(tx.r),
    s: word(tx.s),
  };
}
