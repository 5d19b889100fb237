// Transaction receipts in their consensus encoding (what the receipts root commits to): typed envelopes from
// EIP-2718 on, [status, cumulativeGasUsed, bloom, logs]. OP deposit receipts add depositNonce and
// depositReceiptVersion (they come with the OP-Stack rules).
import { TernError } from '../errors.js';
import {
  asBytes,
  asList,
  bigintToBytes,
  bytesToBigint,
  type RlpDecoded,
  rlpDecode,
  rlpEncode,
  rlpEncodeTyped,
} from '../rlp.js';
import { logsBloom } from './bloom.js';

export interface Log {
  address: Uint8Array;
  topics: Uint8Array[];
  data: Uint8Array;
}

export interface Receipt {
  /** Transaction type (0 legacy, 1, 2, 3, 4, 0x7e deposit). */
  type: number;
  /** 1 success, 0 failure (post-Byzantium); pre-Byzantium receipts carry a state root instead. */
  status: number;
  postState?: Uint8Array | undefined;
  cumulativeGasUsed: bigint;
  logsBloom: Uint8Array;
  logs: Log[];
  depositNonce?: bigint | undefined;
  depositReceiptVersion?: bigint | undefined;
}

export function encodeLog(l: Log): RlpDecoded {
  return [l.address, l.topics, l.data];
}

const DEPOSIT_TYPE = 0x7e;

function statusField(r: Receipt): Uint8Array {
  return r.postState ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0));
}

// op-geth's optional trailing fields: depositNonce (Regolith on), then depositReceiptVersion (Canyon on); a
// version without a nonce still needs the nonce slot, written as zero as Go's rlp "optional" does.
function depositFields(r: Receipt): RlpDecoded[] {
  if (r.type !== DEPOSIT_TYPE) return [];
  const out: RlpDecoded[] = [];
  if (r.depositNonce !== undefined || r.depositReceiptVersion !== undefined) {
    out.push(bigintToBytes(r.depositNonce ?? 0n));
  }
  if (r.depositReceiptVersion !== undefined) out.push(bigintToBytes(r.depositReceiptVersion));
  return out;
}

/** The consensus encoding (eth/debug_getRawReceipts, p2p), deposit nonce and version included when set. */
export function encodeReceipt(r: Receipt): Uint8Array {
  const fields: RlpDecoded[] = [statusField(r), bigintToBytes(r.cumulativeGasUsed), r.logsBloom, r.logs.map(encodeLog)];
  if (r.type === DEPOSIT_TYPE) fields.push(...depositFields(r));
  return r.type === 0 ? rlpEncode(fields) : rlpEncodeTyped(r.type, fields);
}

/**
 * The encoding the receipts root commits to. It differs from encodeReceipt for Regolith-to-Canyon deposit
 * receipts: those carry a depositNonce, but the root left it out until Canyon added depositReceiptVersion
 * (op-geth Receipts.EncodeIndex keeps this for old blocks to keep their roots).
 */
export function encodeReceiptForRoot(r: Receipt): Uint8Array {
  if (r.type === DEPOSIT_TYPE && r.depositReceiptVersion === undefined) {
    return encodeReceipt({ ...r, depositNonce: undefined });
  }
  return encodeReceipt(r);
}

/**
 * op-geth's database form: [status, cumulativeGasUsed, logs, depositNonce?, depositReceiptVersion?], without
 * the type and bloom (both rebuilt on read). The version is only stored alongside a nonce.
 */
export function encodeStoredReceipt(r: Receipt): Uint8Array {
  const fields: RlpDecoded[] = [statusField(r), bigintToBytes(r.cumulativeGasUsed), r.logs.map(encodeLog)];
  if (r.depositNonce !== undefined) {
    fields.push(bigintToBytes(r.depositNonce));
    if (r.depositReceiptVersion !== undefined) fields.push(bigintToBytes(r.depositReceiptVersion));
  }
  return rlpEncode(fields as Parameters<typeof rlpEncode>[0]);
}

function decodeLogs(item: RlpDecoded | undefined): Log[] {
  return asList(item, 'receipt logs').map((l) => {
    const lf = asList(l, 'log');
    if (lf.length !== 3) throw new TernError('RECEIPT_INVALID', `log has ${lf.length} fields, want 3`);
    return {
      address: asBytes(lf[0], 'log address'),
      topics: asList(lf[1], 'log topics').map((t) => asBytes(t, 'log topic')),
      data: asBytes(lf[2], 'log data'),
    };
  });
}

function setStatus(r: Receipt, statusBytes: Uint8Array): void {
  if (statusBytes.length === 32) {
    r.postState = statusBytes;
    r.status = 1;
  } else if (statusBytes.length === 1 && statusBytes[0] === 1) r.status = 1;
  else if (statusBytes.length === 0) r.status = 0;
  else throw new TernError('RECEIPT_INVALID', 'invalid receipt status');
}

/** Reads op-geth's database form back; the type comes from the transaction, the bloom is recomputed. */
export function decodeStoredReceipt(data: Uint8Array, type: number): Receipt {
  const f = asList(rlpDecode(data), 'stored receipt');
  if (f.length < 3 || f.length > 5) throw new TernError('RECEIPT_INVALID', `stored receipt has ${f.length} fields`);
  const logs = decodeLogs(f[2]);
  const r: Receipt = {
    type,
    status: 0,
    cumulativeGasUsed: bytesToBigint(asBytes(f[1], 'receipt gas'), 'receipt gas'),
    logsBloom: logsBloom(logs),
    logs,
  };
  setStatus(r, asBytes(f[0], 'receipt status'));
  if (f.length > 3) r.depositNonce = bytesToBigint(asBytes(f[3], 'depositNonce'), 'depositNonce');
  if (f.length > 4) r.depositReceiptVersion = bytesToBigint(asBytes(f[4], 'depositReceiptVersion'));
  return r;
}

export function decodeReceipt(data: Uint8Array): Receipt {
  if (data.length === 0) throw new TernError('RECEIPT_INVALID', 'empty receipt');
  const first = data[0] as number;
  const type = first >= 0xc0 ? 0 : first;
  const f = asList(rlpDecode(type === 0 ? data : data.subarray(1)), 'receipt');
  // Only deposit receipts carry the optional depositNonce and depositReceiptVersion.
  if (f.length < 4 || f.length > (type === DEPOSIT_TYPE ? 6 : 4)) {
    throw new TernError('RECEIPT_INVALID', `type-${type} receipt has ${f.length} fields`);
  }
  const statusBytes = asBytes(f[0], 'receipt status');
  const r: Receipt = {
    type,
    status: statusBytes.length === 32 ? 1 : statusBytes.length === 1 && statusBytes[0] === 1 ? 1 : 0,
    cumulativeGasUsed: bytesToBigint(asBytes(f[1], 'receipt gas'), 'receipt gas'),
    logsBloom: asBytes(f[2], 'receipt bloom'),
    logs: asList(f[3], 'receipt logs').map((l) => {
      const lf = asList(l, 'log');
      return {
        address: asBytes(lf[0], 'log address'),
        topics: asList(lf[1], 'log topics').map((t) => asBytes(t, 'log topic')),
        data: asBytes(lf[2], 'log data'),
      };
    }),
  };
  if (statusBytes.length === 32) r.postState = statusBytes;
  if (f.length > 4) r.depositNonce = bytesToBigint(asBytes(f[4], 'depositNonce'));
  if (f.length > 5) r.depositReceiptVersion = bytesToBigint(asBytes(f[5], 'depositReceiptVersion'));
  return r;
}
