// User deposits from the OptimismPortal's TransactionDeposited logs (deposits.md, "Deposit Contract"). Only
// successful receipts count; the log index in the source hash is the log's position in the whole block.
// A log from the portal that does not decode is a critical error, as in op-node and kona.
import { keccak256 } from '../../native/keccak.js';
import type { Log, Receipt } from '../../primitives/receipt/receipt.js';
import type { DepositTx } from '../../primitives/tx/deposit/deposit.js';
import { userDepositSourceHash } from '../../primitives/tx/deposit/sourceHash.js';
import { criticalError, fromHex, type Hex, sameHex, toHex } from './types.js';

export const DEPOSIT_EVENT_TOPIC: Hex = toHex(
  keccak256(new TextEncoder().encode('TransactionDeposited(address,address,uint256,bytes)')),
);

function bad(message: string): never {
  throw criticalError('DEPOSIT_LOG_INVALID', `malformed TransactionDeposited log: ${message}`);
}

function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (b[i] !== 0) return false;
  return true;
}

const big = (b: Uint8Array): bigint => (b.length === 0 ? 0n : BigInt(toHex(b)));

/** Decodes one TransactionDeposited log (version 0) into a deposit transaction. */
export function decodeDepositLog(log: Log, l1BlockHash: Hex, logIndex: number): DepositTx {
  if (log.topics.length !== 4) bad(`expected 4 topics, got ${log.topics.length}`);
  if (toHex(log.topics[0] as Uint8Array) !== DEPOSIT_EVENT_TOPIC) bad('not a TransactionDeposited event');
  const data = log.data;
  if (data.length < 64) bad(`data is ${data.length} bytes, shorter than the bytes header`);
  if (data.length % 32 !== 0) bad(`data is ${data.length} bytes, not a multiple of 32`);
  const offset = data.subarray(0, 32);
  if (!allZero(offset, 0, 24) || big(offset) !== 32n) bad('invalid opaqueData offset');
  const lenWord = data.subarray(32, 64);
  if (!allZero(lenWord, 0, 24)) bad('invalid opaqueData length');
  const len = Number(big(lenWord));
  const room = data.length - 64;
  // Length within the data, with minimal padding.
  if (len > room || len + 32 <= room) bad(`invalid opaqueData length ${len}`);
  const version = log.topics[3] as Uint8Array;
  if (!allZero(version, 0, 32)) bad(`unsupported deposit version ${toHex(version)}`);
  const opaque = data.subarray(64, 64 + len);
  if (opaque.length < 32 + 32 + 8 + 1) bad(`opaqueData is ${opaque.length} bytes, too short`);
  const from = (log.topics[1] as Uint8Array).slice(12, 32);
  const to = (log.topics[2] as Uint8Array).slice(12, 32);
  const isCreation = opaque[72] !== 0;
  return {
    sourceHash: userDepositSourceHash(fromHex(l1BlockHash), BigInt(logIndex)),
    from,
    to: isCreation ? undefined : to,
    mint: big(opaque.subarray(0, 32)),
    value: big(opaque.subarray(32, 64)),
    gasLimit: big(opaque.subarray(64, 72)),
    isSystemTx: false,
    data: opaque.slice(73),
  };
}

/** All user deposits of one L1 block, in log order. */
export function userDeposits(receipts: readonly Receipt[], depositContract: Hex, l1BlockHash: Hex): DepositTx[] {
  const out: DepositTx[] = [];
  let logIndex = 0;
  for (const r of receipts) {
    for (const log of r.logs) {
      const index = logIndex++;
      if (r.status !== 1) continue;
      if (!sameHex(toHex(log.address), depositContract)) continue;
      if (log.topics.length === 0 || toHex(log.topics[0] as Uint8Array) !== DEPOSIT_EVENT_TOPIC) continue;
      out.push(decodeDepositLog(log, l1BlockHash, index));
    }
  }
  return out;
}
