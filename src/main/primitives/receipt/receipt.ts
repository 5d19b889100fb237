// Transaction receipts in their consensus encoding (what the receipts root commits to): typed envelopes from
// EIP-2718 on, [status, cumulativeGasUsed, bloom, logs]. OP deposit receipts add depositNonce and
// depositReceiptVersion (they come with the OP-Stack rules).
import { TernError } from '../../common/errors.js';
import { asBytes, asList, bigintToBytes, bytesToBigint, type RlpDecoded, rlpDecode, rlpEncode } from '../rlp.js';

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

export function encodeReceipt(r: Receipt): Uint8Array {
  const fields: Array<RlpDecoded> = [
    r.postState ?? (r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0)),
    bigintToBytes(r.cumulativeGasUsed),
    r.logsBloom,
    r.logs.map(encodeLog),
  ];
  if (r.depositNonce !== undefined) fields.push(bigintToBytes(r.depositNonce));
  if (r.depositReceiptVersion !== undefined) fields.push(bigintToBytes(r.depositReceiptVersion));
  const body = rlpEncode(fields as Parameters<typeof rlpEncode>[0]);
  if (r.type === 0) return body;
  const out = new Uint8Array(body.length + 1);
  out[0] = r.type;
  out.set(body, 1);
  return out;
}

export function decodeReceipt(data: Uint8Array): Receipt {
  if (data.length === 0) throw new TernError('RECEIPT_INVALID', 'empty receipt');
  const first = data[0] as number;
  const type = first >= 0xc0 ? 0 : first;
  const f = asList(rlpDecode(type === 0 ? data : data.subarray(1)), 'receipt');
  if (f.length < 4) throw new TernError('RECEIPT_INVALID', `receipt has ${f.length} fields`);
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
