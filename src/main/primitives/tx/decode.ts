// Decoding of signed transactions from their consensus encoding into the field shape the state transition
// reads (TransactionLike), without @ethereumjs/tx's class machinery: block import decodes every transaction,
// so this stays a flat field read. Signature checks and sender recovery live in exec/senders.
import { Address } from '@ethereumjs/util';
import { keccak256 } from '../../native/keccak.js';
import { TernError } from '../errors.js';
import { asBytes, asList, bytesToBigint, type RlpDecoded, rlpDecode } from '../rlp.js';
import { DEPOSIT_TX_TYPE, decodeDepositTx } from './deposit/deposit.js';
import { decodeDirect } from './direct.js';
import { legacyChainId } from './eip155.js';

export interface DecodedTx {
  readonly type: number;
  readonly chainId: bigint | undefined;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly to?: Address | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly gasPrice?: bigint;
  readonly maxFeePerGas?: bigint;
  readonly maxPriorityFeePerGas?: bigint;
  readonly accessList?: ReadonlyArray<readonly [Uint8Array, readonly Uint8Array[]]>;
  readonly blobVersionedHashes?: readonly string[];
  readonly maxFeePerBlobGas?: bigint;
  readonly authorizationList?: ReadonlyArray<readonly Uint8Array[]>;
  readonly v: bigint;
  readonly r: bigint;
  readonly s: bigint;
  readonly hash: Uint8Array;
  readonly raw: Uint8Array;
  /** OP deposit (type 0x7e) fields; v/r/s, gasPrice and nonce are 0 and chainId undefined for deposits. */
  readonly deposit?: { sourceHash: Uint8Array; from: Uint8Array; mint: bigint; isSystemTx: boolean };
}

function bad(message: string): never {
  throw new TernError('TX_DECODE', message);
}

const int = (f: RlpDecoded[], i: number, what: string) => bytesToBigint(asBytes(f[i], what), what);

function toField(f: RlpDecoded[], i: number): Address | undefined {
  const b = asBytes(f[i], 'to');
  if (b.length === 0) return undefined;
  if (b.length !== 20) bad(`transaction "to" is ${b.length} bytes, want 20`);
  return new Address(b);
}

function accessList(item: RlpDecoded | undefined): Array<readonly [Uint8Array, Uint8Array[]]> {
  return asList(item, 'accessList').map((entry) => {
    const e = asList(entry, 'access list entry');
    if (e.length !== 2) bad('access list entry must be [address, storageKeys]');
    const address = asBytes(e[0], 'access list address');
    if (address.length !== 20) bad('access list address is not 20 bytes');
    const keys = asList(e[1], 'access list keys').map((k) => {
      const key = asBytes(k, 'access list key');
      if (key.length !== 32) bad('access list storage key is not 32 bytes');
      return key;
    });
    return [address, keys] as const;
  });
}

const FIELD_COUNT: Record<number, number> = { 1: 11, 2: 12, 3: 14, 4: 13 };

/**
 * Decodes a signed transaction. Legacy, EIP-2930 and EIP-1559 transactions (every transaction of a typical block)
 * are read straight from the bytes (./direct.ts); anything that read does not accept — other types, and every
 * malformed encoding — goes through the general decoder below, which gives the error.
 */
export function decodeTransaction(raw: Uint8Array): DecodedTx {
  return decodeDirect(raw) ?? decodeGeneral(raw);
}

/** The general decoder: the whole RLP item first, then its fields (every type, every refusal). */
export function decodeGeneral(raw: Uint8Array): DecodedTx {
  if (raw.length === 0) bad('empty transaction');
  const hash = keccak256(raw);
  const first = raw[0] as number;
  if (first >= 0xc0) {
    const f = asList(rlpDecode(raw), 'legacy transaction');
    if (f.length !== 9) bad(`legacy transaction has ${f.length} fields, want 9`);
    const v = int(f, 6, 'v');
    return {
      type: 0,
      chainId: legacyChainId(v),
      nonce: int(f, 0, 'nonce'),
      gasPrice: int(f, 1, 'gasPrice'),
      gasLimit: int(f, 2, 'gasLimit'),
      to: toField(f, 3),
      value: int(f, 4, 'value'),
      data: asBytes(f[5], 'data'),
      v,
      r: int(f, 7, 'r'),
      s: int(f, 8, 's'),
      hash,
      raw,
    };
  }
  if (first === DEPOSIT_TX_TYPE) {
    const d = decodeDepositTx(raw);
    return {
      type: first,
      chainId: undefined,
      nonce: 0n,
      gasPrice: 0n,
      gasLimit: d.gasLimit,
      to: d.to === undefined ? undefined : new Address(d.to),
      value: d.value,
      data: d.data,
      v: 0n,
      r: 0n,
      s: 0n,
      hash,
      raw,
      deposit: { sourceHash: d.sourceHash, from: d.from, mint: d.mint, isSystemTx: d.isSystemTx },
    };
  }
  const want = FIELD_COUNT[first];
  if (want === undefined) throw new TernError('TX_TYPE_UNSUPPORTED', `transaction type ${first} not supported`);
  const f = asList(rlpDecode(raw.subarray(1)), `type-${first} transaction`);
  if (f.length !== want) bad(`type-${first} transaction has ${f.length} fields, want ${want}`);
  const sig = { v: int(f, want - 3, 'yParity'), r: int(f, want - 2, 'r'), s: int(f, want - 1, 's') };
  const common = { type: first, chainId: int(f, 0, 'chainId'), nonce: int(f, 1, 'nonce'), ...sig, hash, raw };
  if (first === 1) {
    return {
      ...common,
      gasPrice: int(f, 2, 'gasPrice'),
      gasLimit: int(f, 3, 'gasLimit'),
      to: toField(f, 4),
      value: int(f, 5, 'value'),
      data: asBytes(f[6], 'data'),
      accessList: accessList(f[7]),
    };
  }
  const dynamic = {
    ...common,
    maxPriorityFeePerGas: int(f, 2, 'maxPriorityFeePerGas'),
    maxFeePerGas: int(f, 3, 'maxFeePerGas'),
    gasLimit: int(f, 4, 'gasLimit'),
    to: toField(f, 5),
    value: int(f, 6, 'value'),
    data: asBytes(f[7], 'data'),
    accessList: accessList(f[8]),
  };
  if (first === 2) return dynamic;
  if (dynamic.to === undefined) bad(`type-${first} transaction cannot create a contract (empty "to")`);
  if (first === 3) {
    return {
      ...dynamic,
      maxFeePerBlobGas: int(f, 9, 'maxFeePerBlobGas'),
      blobVersionedHashes: asList(f[10], 'blobVersionedHashes').map((h) => {
        const b = asBytes(h, 'blob versioned hash');
        if (b.length !== 32) bad('blob versioned hash is not 32 bytes');
        return `0x${Buffer.from(b).toString('hex')}`;
      }),
    };
  }
  return {
    ...dynamic,
    authorizationList: asList(f[9], 'authorizationList').map((a) => {
      const auth = asList(a, 'authorization');
      if (auth.length !== 6) bad('authorization must have 6 fields');
      return auth.map((x) => asBytes(x, 'authorization field'));
    }),
  };
}
