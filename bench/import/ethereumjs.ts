// The baseline: the same chain through @ethereumjs/vm's runBlock, tuned as far as its options go (bench/import/
// ejs.ts: native libsecp256k1 and keccak through customCrypto, LRU state caches kept across blocks). Each block is
// decoded with createBlockFromRLP, checked against its parent as @ethereumjs/blockchain's validateHeader would
// (there is no Blockchain here, so runBlock's own header check is off), then run with runBlock's defaults:
// body validation (transaction trie, uncles, withdrawals, every signature) and, after execution, the receipts
// root, bloom, gas used and state root compared with the header — what tern's importer checks as well. The trie
// lives in memory (ethereumjs's MapDB): unlike tern, nothing is written to disk.
import { readFileSync } from 'node:fs';
import { type Block, createBlockFromRLP } from '@ethereumjs/block';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { runBlock } from '@ethereumjs/vm';
import { benchCommon, type TuningOptions, tunedVM } from './ejs.js';
import { type GenesisJson, genesisBlock, hex, loadGenesisState } from './genesis.js';
import type { ChainFiles, ChainMeta } from './params.js';
import type { ImportFigures } from './tern.js';

/** Splits concatenated RLP items (geth's export format) without decoding them. */
export function* splitRlp(data: Uint8Array): Generator<Uint8Array> {
  let at = 0;
  while (at < data.length) {
    const b = data[at] as number;
    let len: number;
    if (b < 0xc0) throw new Error(`chain file: byte ${at} does not start a block (RLP list)`);
    if (b < 0xf8) len = 1 + (b - 0xc0);
    else {
      const n = b - 0xf7;
      let payload = 0;
      for (let i = 1; i <= n; i++) payload = payload * 256 + (data[at + i] as number);
      len = 1 + n + payload;
    }
    yield data.subarray(at, at + len);
    at += len;
  }
}

function checkAgainstParent(block: Block, parent: Block): void {
  const h = block.header;
  const p = parent.header;
  const fail = (why: string) => {
    throw new Error(`block ${h.number}: ${why}`);
  };
  if (!Buffer.from(h.parentHash).equals(Buffer.from(parent.hash()))) fail('parent hash mismatch');
  if (h.number !== p.number + 1n) fail('number is not the parent number + 1');
  if (h.timestamp <= p.timestamp) fail('timestamp is not after the parent');
  h.validateGasLimit(p);
  if (h.baseFeePerGas !== p.calcNextBaseFee()) fail('base fee mismatch');
  if (h.excessBlobGas !== p.calcNextExcessBlobGas(block.common)) fail('excess blob gas mismatch');
  if (h.gasUsed > h.gasLimit) fail('gas used above the limit');
  if (h.extraData.length > 32) fail('extra data too long');
}

export async function runEthereumjs(
  files: ChainFiles,
  meta: ChainMeta,
  opts: TuningOptions = {},
  limit?: number,
): Promise<ImportFigures> {
  const genesis = JSON.parse(readFileSync(files.genesis, 'utf8')) as GenesisJson;
  const chainId = BigInt(genesis.config.chainId as number);
  // Time spent inside sender recovery (ecrecover through customCrypto), measured by wrapping the hook.
  // (Without the native hook, ethereumjs calls @noble/curves directly and the time stays under execution.)
  let recoverMs = 0;
  const common = benchCommon(chainId, opts);
  const ecrecover = common.customCrypto.ecrecover;
  if (ecrecover !== undefined) {
    common.customCrypto.ecrecover = (...args) => {
      const t = performance.now();
      const out = ecrecover(...args);
      recoverMs += performance.now() - t;
      return out;
    };
  }
  const vm = await tunedVM(common, opts);
  const sm = vm.stateManager as MerkleStateManager;
  const root = await loadGenesisState(sm, genesis);
  let parent = genesisBlock(genesis, common, root);
  if (hex(parent.hash()) !== meta.genesisHash) throw new Error(`ethereumjs genesis ${hex(parent.hash())} differs`);

  // Time spent in getStateRoot (flushing the caches into the trie and hashing it), which runBlock calls once.
  let stateRootMs = 0;
  const getStateRoot = sm.getStateRoot.bind(sm);
  sm.getStateRoot = async () => {
    const t = performance.now();
    const out = await getStateRoot();
    stateRootMs += performance.now() - t;
    return out;
  };

  const data = readFileSync(files.chain);
  let decodeMs = 0;
  let runMs = 0;
  let blocks = 0;
  let txs = 0;
  let gas = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (const raw of splitRlp(data)) {
    if (limit !== undefined && blocks >= limit) break;
    const t0 = performance.now();
    const block = createBlockFromRLP(raw, { common });
    const t1 = performance.now();
    checkAgainstParent(block, parent);
    await runBlock(vm, { block, skipHeaderValidation: true });
    runMs += performance.now() - t1;
    decodeMs += t1 - t0;
    parent = block;
    blocks++;
    txs += block.transactions.length;
    gas += Number(block.header.gasUsed);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  if (limit === undefined && hex(parent.hash()) !== meta.headHash) throw new Error('ethereumjs ended on another head');
  return {
    blocks,
    txs,
    gas,
    seconds,
    mgasPerSec: gas / 1e6 / seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    split: {
      decode: decodeMs,
      senders: recoverMs,
      stateRoot: stateRootMs,
      execution: runMs - recoverMs - stateRootMs,
      persistence: 0,
      other: seconds * 1000 - decodeMs - runMs,
    },
  };
}
