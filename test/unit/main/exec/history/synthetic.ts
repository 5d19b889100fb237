// A generated chain written straight into the chain tables: headers with the right logs bloom, empty bodies and
// receipts with random logs over a small set of addresses and topics (so filters hit often and miss often).

import { mulberryRng } from '../../../../../bench/rng.js';
import type { KVStore } from '../../../../../src/main/common/db/interface.js';
import * as chain from '../../../../../src/main/exec/db/chain.js';
import { encodeHeader, type Header, headerHash } from '../../../../../src/main/primitives/block/header.js';
import { logsBloom } from '../../../../../src/main/primitives/receipt/bloom.js';
import { encodeReceipt, type Log, type Receipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { rlpEncode } from '../../../../../src/main/primitives/rlp.js';

export const ADDRESSES = Array.from({ length: 4 }, (_, i) => new Uint8Array(20).fill(0x10 + i));
export const TOPICS = Array.from({ length: 5 }, (_, i) => new Uint8Array(32).fill(0xa0 + i));

export interface SyntheticBlock {
  number: number;
  hash: Uint8Array;
  header: Header;
  receipts: Receipt[];
}

function makeHeader(number: number, parentHash: Uint8Array, receipts: Receipt[], salt: number): Header {
  const bloom = logsBloom(receipts.flatMap((r) => r.logs));
  return {
    parentHash,
    uncleHash: new Uint8Array(32),
    coinbase: new Uint8Array(20),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: bloom,
    difficulty: 0n,
    number: BigInt(number),
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: BigInt(1000 + number * 2 + salt),
    extraData: new Uint8Array(0),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 7n,
  };
}

function randomReceipts(next: () => number): Receipt[] {
  const receipts: Receipt[] = [];
  const txs = Math.floor(next() * 4);
  for (let t = 0; t < txs; t++) {
    const logs: Log[] = [];
    const n = Math.floor(next() * 3);
    for (let l = 0; l < n; l++) {
      const topics = Array.from({ length: Math.floor(next() * 4) }, () => TOPICS[Math.floor(next() * TOPICS.length)]!);
      logs.push({ address: ADDRESSES[Math.floor(next() * ADDRESSES.length)]!, topics, data: Uint8Array.of(t, l) });
    }
    receipts.push({ type: 2, status: 1, cumulativeGasUsed: 21000n, logsBloom: logsBloom(logs), logs });
  }
  return receipts;
}

/** Writes one block's header, empty body and receipts (not canonical). */
export function writeSyntheticBlock(b: ReturnType<KVStore['batch']>, blk: SyntheticBlock): void {
  chain.writeHeaderRlp(b, blk.number, blk.hash, encodeHeader(blk.header));
  chain.writeBodyRlp(b, blk.number, blk.hash, rlpEncode([[], []]));
  chain.writeReceiptsRlp(b, blk.number, blk.hash, rlpEncode(blk.receipts.map((r) => encodeReceipt(r))));
}

export function makeBlock(number: number, parentHash: Uint8Array, next: () => number, salt = 0): SyntheticBlock {
  const receipts = number === 0 ? [] : randomReceipts(next);
  const header = makeHeader(number, parentHash, receipts, salt);
  return { number, hash: headerHash(header), header, receipts };
}

/** Writes blocks 0..count-1 as the canonical chain with its head markers; returns them. */
export async function writeSyntheticChain(kv: KVStore, count: number, seed: number): Promise<SyntheticBlock[]> {
  const next = mulberryRng(seed).float;
  const blocks: SyntheticBlock[] = [];
  let parent: Uint8Array = new Uint8Array(32);
  const b = kv.batch();
  for (let n = 0; n < count; n++) {
    const blk = makeBlock(n, parent, next);
    writeSyntheticBlock(b, blk);
    chain.writeCanonicalHash(b, n, blk.hash);
    blocks.push(blk);
    parent = blk.hash;
  }
  const head = blocks[blocks.length - 1]!;
  chain.writeHeadBlockHash(b, head.hash);
  chain.writeHeadHeaderHash(b, head.hash);
  chain.writeGenesisHash(b, blocks[0]!.hash);
  await b.commit();
  return blocks;
}
