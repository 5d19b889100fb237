// Block headers: the fields through Prague, RLP encoding and decoding (optional trailing fields present from
// the fork that introduced them: London base fee, Shanghai withdrawals root, Cancun blob gas and beacon root,
// Prague requests hash), the hash, and the JSON shape of eth_getBlockBy*.

import { keccak256 } from '../../native/keccak.js';
import { fromHex, toHex as hex } from '../bytes.js';
import { TernError } from '../errors.js';
import { asBytes, asList, bigintToBytes, bytesToBigint, rlpDecode, rlpEncode } from '../rlp.js';

export interface Header {
  parentHash: Uint8Array;
  uncleHash: Uint8Array;
  coinbase: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  timestamp: bigint;
  extraData: Uint8Array;
  mixHash: Uint8Array;
  nonce: Uint8Array;
  baseFeePerGas?: bigint | undefined;
  withdrawalsRoot?: Uint8Array | undefined;
  blobGasUsed?: bigint | undefined;
  excessBlobGas?: bigint | undefined;
  parentBeaconBlockRoot?: Uint8Array | undefined;
  requestsHash?: Uint8Array | undefined;
}

/** keccak256(rlp([])): the uncle hash of every post-merge block. */
export const EMPTY_UNCLE_HASH = fromHex('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347');
/** sha256 of nothing: the requests hash of a block without execution-layer requests (EIP-7685). */
export const EMPTY_REQUESTS_HASH = fromHex('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');

const OPTIONAL = [
  'baseFeePerGas',
  'withdrawalsRoot',
  'blobGasUsed',
  'excessBlobGas',
  'parentBeaconBlockRoot',
  'requestsHash',
] as const;

function fixed(item: Uint8Array, len: number, what: string): Uint8Array {
  if (item.length !== len)
    throw new TernError('HEADER_INVALID', `header ${what}: expected ${len} bytes, got ${item.length}`);
  return item;
}

export function encodeHeader(h: Header): Uint8Array {
  const fields: Array<Uint8Array> = [
    h.parentHash,
    h.uncleHash,
    h.coinbase,
    h.stateRoot,
    h.transactionsRoot,
    h.receiptsRoot,
    h.logsBloom,
    bigintToBytes(h.difficulty),
    bigintToBytes(h.number),
    bigintToBytes(h.gasLimit),
    bigintToBytes(h.gasUsed),
    bigintToBytes(h.timestamp),
    h.extraData,
    h.mixHash,
    h.nonce,
  ];
  // Optional fields are written in order up to the last one present; a gap is an encoding error.
  let lastPresent = -1;
  OPTIONAL.forEach((k, i) => {
    if (h[k] !== undefined) lastPresent = i;
  });
  for (let i = 0; i <= lastPresent; i++) {
    const k = OPTIONAL[i] as (typeof OPTIONAL)[number];
    const v = h[k];
    if (v === undefined) throw new TernError('HEADER_INVALID', `header has ${OPTIONAL[lastPresent]} but no ${k}`);
    fields.push(typeof v === 'bigint' ? bigintToBytes(v) : v);
  }
  return rlpEncode(fields);
}

export function decodeHeader(data: Uint8Array): Header {
  return headerFromFields(asList(rlpDecode(data), 'header'));
}

export function headerFromFields(f: ReturnType<typeof asList>): Header {
  if (f.length < 15 || f.length > 15 + OPTIONAL.length) {
    throw new TernError('HEADER_INVALID', `header has ${f.length} fields`);
  }
  const b = (i: number, what: string) => asBytes(f[i], `header ${what}`);
  const n = (i: number, what: string) => bytesToBigint(b(i, what), `header ${what}`);
  /** The fields geth's header holds as uint64: more than 8 bytes is a decoding error there, and here. */
  const u64 = (i: number, what: string) => {
    const item = b(i, what);
    if (item.length > 8) throw new TernError('HEADER_INVALID', `header ${what}: ${item.length} bytes overflow uint64`);
    return bytesToBigint(item, `header ${what}`);
  };
  const h: Header = {
    parentHash: fixed(b(0, 'parentHash'), 32, 'parentHash'),
    uncleHash: fixed(b(1, 'uncleHash'), 32, 'uncleHash'),
    coinbase: fixed(b(2, 'coinbase'), 20, 'coinbase'),
    stateRoot: fixed(b(3, 'stateRoot'), 32, 'stateRoot'),
    transactionsRoot: fixed(b(4, 'transactionsRoot'), 32, 'transactionsRoot'),
    receiptsRoot: fixed(b(5, 'receiptsRoot'), 32, 'receiptsRoot'),
    logsBloom: fixed(b(6, 'logsBloom'), 256, 'logsBloom'),
    difficulty: n(7, 'difficulty'),
    number: n(8, 'number'),
    gasLimit: u64(9, 'gasLimit'),
    gasUsed: u64(10, 'gasUsed'),
    timestamp: u64(11, 'timestamp'),
    extraData: b(12, 'extraData'),
    mixHash: fixed(b(13, 'mixHash'), 32, 'mixHash'),
    nonce: fixed(b(14, 'nonce'), 8, 'nonce'),
  };
  if (f.length > 15) h.baseFeePerGas = n(15, 'baseFeePerGas');
  if (f.length > 16) h.withdrawalsRoot = fixed(b(16, 'withdrawalsRoot'), 32, 'withdrawalsRoot');
  if (f.length > 17) h.blobGasUsed = u64(17, 'blobGasUsed');
  if (f.length > 18) h.excessBlobGas = u64(18, 'excessBlobGas');
  if (f.length > 19) h.parentBeaconBlockRoot = fixed(b(19, 'parentBeaconBlockRoot'), 32, 'parentBeaconBlockRoot');
  if (f.length > 20) h.requestsHash = fixed(b(20, 'requestsHash'), 32, 'requestsHash');
  return h;
}

export function headerHash(h: Header): Uint8Array {
  return keccak256(encodeHeader(h));
}

const qty = (n: bigint) => `0x${n.toString(16)}`;

/** The header fields as eth_getBlockByNumber returns them (geth's field names and order). */
export function headerToJson(h: Header, hash: Uint8Array = headerHash(h)): Record<string, string> {
  const out: Record<string, string> = {
    hash: hex(hash),
    parentHash: hex(h.parentHash),
    sha3Uncles: hex(h.uncleHash),
    miner: hex(h.coinbase),
    stateRoot: hex(h.stateRoot),
    transactionsRoot: hex(h.transactionsRoot),
    receiptsRoot: hex(h.receiptsRoot),
    logsBloom: hex(h.logsBloom),
    difficulty: qty(h.difficulty),
    number: qty(h.number),
    gasLimit: qty(h.gasLimit),
    gasUsed: qty(h.gasUsed),
    timestamp: qty(h.timestamp),
    extraData: hex(h.extraData),
    mixHash: hex(h.mixHash),
    nonce: hex(h.nonce),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = qty(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = hex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = qty(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = qty(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined) out.parentBeaconBlockRoot = hex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = hex(h.requestsHash);
  return out;
}
