// L2 blocks as the batcher reads them from the sequencer's execution client (eth_getBlockByNumber with full
// transactions): the block's identity, its L1 origin (from the L1-info deposit, always the first transaction),
// and its non-deposit transactions re-encoded to their EIP-2718 bytes, each checked against the hash the node gave.
import { TernError } from '../common/errors.js';
import { keccak256 } from '../native/keccak.js';
import { toHex } from '../primitives/bytes.js';
import { decodeL1InfoCalldata } from '../primitives/op/l1Info.js';
import { type RlpInput, rlpEncode } from '../primitives/rlp.js';
import type { BlockId } from '../primitives/rollup/blockRef.js';
import type { SingularBatch } from '../protocol/batch/singularBatch.js';

export interface L2Block {
  readonly number: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: number;
  readonly l1Origin: BlockId;
  /** Position in its epoch (0: first block of the epoch). */
  readonly sequenceNumber: number;
  /** EIP-2718 encoded non-deposit transactions, in block order. */
  readonly transactions: readonly Uint8Array[];
}

type Json = Record<string, unknown>;

function bad(message: string): never {
  throw new TernError('L2_BLOCK_INVALID', message);
}

const hexToBytes = (h: unknown, what: string): Uint8Array => {
  if (typeof h !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(h)) bad(`${what} is not hex bytes: ${String(h)}`);
  return Uint8Array.from(Buffer.from(h.slice(2), 'hex'));
};
const qty = (h: unknown, what: string): bigint => {
  if (typeof h !== 'string' || !/^0x[0-9a-fA-F]+$/.test(h)) bad(`${what} is not a hex quantity: ${String(h)}`);
  return BigInt(h);
};
const num = (h: unknown, what: string): number => Number(qty(h, what));

function accessList(v: unknown): RlpInput[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) bad('accessList is not a list');
  return v.map((e: Json) => [
    hexToBytes(e.address, 'accessList address'),
    ((e.storageKeys as unknown[]) ?? []).map((k) => hexToBytes(k, 'storage key')),
  ]);
}

function yParity(tx: Json): bigint {
  if (tx.yParity !== undefined) return qty(tx.yParity, 'yParity');
  return qty(tx.v, 'v');
}

/** Re-encodes a JSON transaction of type 0, 1, 2 or 4 (blob transactions do not exist on L2). */
export function encodeRpcTransaction(tx: Json): Uint8Array {
  const type = tx.type === undefined ? 0 : num(tx.type, 'type');
  const to = tx.to === null || tx.to === undefined ? new Uint8Array(0) : hexToBytes(tx.to, 'to');
  const common = (): RlpInput[] => [qty(tx.chainId, 'chainId'), qty(tx.nonce, 'nonce')];
  const sig = (): RlpInput[] => [yParity(tx), qty(tx.r, 'r'), qty(tx.s, 's')];
  const data = hexToBytes(tx.input ?? tx.data, 'input');
  const value = qty(tx.value, 'value');
  const gas = qty(tx.gas, 'gas');
  let fields: RlpInput[];
  switch (type) {
    case 0:
      return rlpEncode([
        qty(tx.nonce, 'nonce'),
        qty(tx.gasPrice, 'gasPrice'),
        gas,
        to,
        value,
        data,
        qty(tx.v, 'v'),
        qty(tx.r, 'r'),
        qty(tx.s, 's'),
      ]);
    case 1:
      fields = [...common(), qty(tx.gasPrice, 'gasPrice'), gas, to, value, data, accessList(tx.accessList), ...sig()];
      break;
    case 2:
      fields = [
        ...common(),
        qty(tx.maxPriorityFeePerGas, 'maxPriorityFeePerGas'),
        qty(tx.maxFeePerGas, 'maxFeePerGas'),
        gas,
        to,
        value,
        data,
        accessList(tx.accessList),
        ...sig(),
      ];
      break;
    case 4: {
      const auths = ((tx.authorizationList as Json[]) ?? []).map((a) => [
        qty(a.chainId, 'auth chainId'),
        hexToBytes(a.address, 'auth address'),
        qty(a.nonce, 'auth nonce'),
        qty(a.yParity ?? a.v, 'auth yParity'),
        qty(a.r, 'auth r'),
        qty(a.s, 'auth s'),
      ]);
      fields = [
        ...common(),
        qty(tx.maxPriorityFeePerGas, 'maxPriorityFeePerGas'),
        qty(tx.maxFeePerGas, 'maxFeePerGas'),
        gas,
        to,
        value,
        data,
        accessList(tx.accessList),
        auths,
        ...sig(),
      ];
      break;
    }
    default:
      return bad(`transaction type ${type} cannot be batched`);
  }
  const body = rlpEncode(fields);
  const out = new Uint8Array(body.length + 1);
  out[0] = type;
  out.set(body, 1);
  return out;
}

const DEPOSIT_TYPE = 0x7e;

/** Reads an eth_getBlockByNumber(n, true) answer. Throws L2_BLOCK_INVALID on anything it cannot batch. */
export function l2BlockFromRpc(block: unknown): L2Block {
  if (block === null || typeof block !== 'object') bad('block not found');
  const b = block as Json;
  const txs = b.transactions;
  if (!Array.isArray(txs) || txs.length === 0)
    bad(`block ${String(b.number)} has no transactions (no L1-info deposit)`);
  const first = txs[0] as Json;
  if (typeof first !== 'object' || num(first.type, 'type') !== DEPOSIT_TYPE) {
    bad(`block ${String(b.number)}: first transaction is not the L1-info deposit`);
  }
  const info = decodeL1InfoCalldata(hexToBytes(first.input, 'L1-info input'));
  const transactions: Uint8Array[] = [];
  for (const tx of txs as Json[]) {
    if (num(tx.type ?? '0x0', 'type') === DEPOSIT_TYPE) continue;
    const raw = encodeRpcTransaction(tx);
    // A wrong re-encoding would post transactions that do not match the block: refuse rather than corrupt L2.
    if (typeof tx.hash === 'string' && toHex(keccak256(raw)) !== tx.hash.toLowerCase()) {
      bad(`block ${String(b.number)}: transaction ${tx.hash} does not re-encode to its hash`);
    }
    transactions.push(raw);
  }
  return {
    number: num(b.number, 'number'),
    hash: String(b.hash).toLowerCase(),
    parentHash: String(b.parentHash).toLowerCase(),
    timestamp: num(b.timestamp, 'timestamp'),
    l1Origin: { number: Number(info.number), hash: toHex(info.blockHash) },
    sequenceNumber: Number(info.sequenceNumber),
    transactions,
  };
}

/** The block as a singular batch (derivation.md "Batch Format"). */
export function toSingularBatch(b: L2Block): SingularBatch {
  return {
    parentHash: hexToBytes(b.parentHash, 'parentHash'),
    epochNum: b.l1Origin.number,
    epochHash: hexToBytes(b.l1Origin.hash, 'epoch hash'),
    timestamp: b.timestamp,
    transactions: b.transactions,
  };
}

/** Bytes a block adds to a channel before compression (transactions plus the batch header), an upper bound. */
export function blockInputSize(b: L2Block): number {
  return b.transactions.reduce((n, t) => n + t.length + 4, 0) + 100;
}
