// Decoding of the gossiped block payload, the inverse of signer/gossipPayload.ts: the SSZ ExecutionPayload of
// each block version (v1 pre-Canyon, v2 withdrawals, v3 blob gas fields, v4 withdrawalsRoot) with every offset and
// list bound checked, so hostile bytes from the network end in a GOSSIP_PAYLOAD error and never in a crash or a
// huge allocation. Limits are the consensus-spec ones op-node decodes with.
import { TernError } from '../../common/errors.js';
import type { ExecutionPayload } from '../engine/interface.js';
import type { BlockVersion } from '../signer/gossipPayload.js';

const FIXED_V1 = 32 + 20 + 32 + 32 + 256 + 32 + 8 + 8 + 8 + 8 + 4 + 32 + 32 + 4;
const FIXED: Record<BlockVersion, number> = { 1: FIXED_V1, 2: FIXED_V1 + 4, 3: FIXED_V1 + 20, 4: FIXED_V1 + 52 };
const WITHDRAWAL_SIZE = 44;
const MAX_EXTRA_DATA = 32;
const MAX_TRANSACTIONS = 1 << 20;
const MAX_WITHDRAWALS = 16;

function bad(message: string): TernError {
  return new TernError('GOSSIP_PAYLOAD', message);
}

/** Decodes an SSZ ExecutionPayload of `version`. The returned byte fields are copies (safe to keep). */
export function decodePayloadSsz(data: Uint8Array, version: BlockVersion): ExecutionPayload {
  const fixed = FIXED[version];
  if (data.length < fixed) throw bad(`v${version} payload needs at least ${fixed} bytes, got ${data.length}`);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const bytes = (n: number) => {
    const b = data.slice(at, at + n);
    at += n;
    return b;
  };
  const u64 = () => {
    const v = view.getBigUint64(at, true);
    at += 8;
    return v;
  };
  const u32 = () => {
    const v = view.getUint32(at, true);
    at += 4;
    return v;
  };
  const parentHash = bytes(32);
  const feeRecipient = bytes(20);
  const stateRoot = bytes(32);
  const receiptsRoot = bytes(32);
  const logsBloom = bytes(256);
  const prevRandao = bytes(32);
  const blockNumber = u64();
  const gasLimit = u64();
  const gasUsed = u64();
  const timestamp = u64();
  const extraAt = u32();
  let baseFeePerGas = 0n;
  for (let i = 0; i < 4; i++) baseFeePerGas |= u64() << BigInt(64 * i);
  const blockHash = bytes(32);
  const txAt = u32();
  const wdAt = version >= 2 ? u32() : data.length;
  const blobGasUsed = version >= 3 ? u64() : undefined;
  const excessBlobGas = version >= 3 ? u64() : undefined;
  const withdrawalsRoot = version >= 4 ? bytes(32) : undefined;

  if (extraAt !== fixed) throw bad(`extraData offset ${extraAt}, expected ${fixed}`);
  if (txAt < extraAt || txAt > data.length) throw bad(`transactions offset ${txAt} out of range`);
  if (wdAt < txAt || wdAt > data.length) throw bad(`withdrawals offset ${wdAt} out of range`);
  if (txAt - extraAt > MAX_EXTRA_DATA) throw bad(`extraData is ${txAt - extraAt} bytes, at most 32 allowed`);
  const extraData = data.slice(extraAt, txAt);
  const transactions = decodeTransactions(data.subarray(txAt, wdAt));

  const payload: ExecutionPayload = {
    parentHash,
    feeRecipient,
    stateRoot,
    receiptsRoot,
    logsBloom,
    prevRandao,
    blockNumber,
    gasLimit,
    gasUsed,
    timestamp,
    extraData,
    baseFeePerGas,
    blockHash,
    transactions,
  };
  if (version >= 2) payload.withdrawals = decodeWithdrawals(data.subarray(wdAt));
  if (version >= 3) {
    payload.blobGasUsed = blobGasUsed;
    payload.excessBlobGas = excessBlobGas;
  }
  if (version >= 4) payload.withdrawalsRoot = withdrawalsRoot;
  return payload;
}

/** A list of variable-size byte strings: offsets (relative to the list start), then the items. */
function decodeTransactions(list: Uint8Array): Uint8Array[] {
  if (list.length === 0) return [];
  if (list.length < 4) throw bad('transactions list shorter than one offset');
  const view = new DataView(list.buffer, list.byteOffset, list.byteLength);
  const first = view.getUint32(0, true);
  if (first % 4 !== 0 || first === 0 || first > list.length) throw bad(`bad first transaction offset ${first}`);
  const count = first / 4;
  if (count > MAX_TRANSACTIONS) throw bad(`${count} transactions, at most ${MAX_TRANSACTIONS} allowed`);
  const txs: Uint8Array[] = new Array(count);
  let start = first;
  for (let i = 0; i < count; i++) {
    const end = i + 1 < count ? view.getUint32((i + 1) * 4, true) : list.length;
    if (end < start || end > list.length) throw bad(`transaction ${i} has offsets out of order or range`);
    txs[i] = list.slice(start, end);
    start = end;
  }
  return txs;
}

function decodeWithdrawals(list: Uint8Array): NonNullable<ExecutionPayload['withdrawals']> {
  if (list.length % WITHDRAWAL_SIZE !== 0) throw bad(`withdrawals are ${list.length} bytes, not a multiple of 44`);
  const count = list.length / WITHDRAWAL_SIZE;
  if (count > MAX_WITHDRAWALS) throw bad(`${count} withdrawals, at most ${MAX_WITHDRAWALS} allowed`);
  const view = new DataView(list.buffer, list.byteOffset, list.byteLength);
  const out: NonNullable<ExecutionPayload['withdrawals']> = [];
  for (let i = 0; i < count; i++) {
    const o = i * WITHDRAWAL_SIZE;
    out.push({
      index: view.getBigUint64(o, true),
      validatorIndex: view.getBigUint64(o + 8, true),
      address: list.slice(o + 16, o + 36),
      amount: view.getBigUint64(o + 36, true),
    });
  }
  return out;
}
