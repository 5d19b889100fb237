// The benchmark chain generator: a deterministic genesis (Cancun at genesis, funded senders with keys derived from
// an index, an ERC-20 token holding balances for them, a compute-bound contract, the EIP-4788 contract) and blocks
// of EIP-1559 transactions in a fixed mix, signed with libsecp256k1. Each block is executed once with
// @ethereumjs/vm's runBlock({generate: true}), which yields its gas used, receipts root, bloom and state root (the
// BlockBuilder re-creates the block for every added transaction, quadratic in the block size), so the chain is
// produced independently of tern and tern's import checks it root by root. The result is cached by parameters.
import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Block, createBlock, genTransactionsTrieRoot } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import { createFeeMarket1559Tx, type FeeMarket1559Tx } from '@ethereumjs/tx';
import { Address, KECCAK256_RLP } from '@ethereumjs/util';
import { runBlock, type VM } from '@ethereumjs/vm';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { sfc32Rng } from '../rng.js';
import {
  BEACON_ROOTS_ADDRESS,
  BEACON_ROOTS_CODE,
  COMPUTE_CODE,
  COMPUTE_GAS_PER_ROUND,
  computeData,
  ERC20_CODE,
  erc20BalanceOfData,
  erc20BalanceSlot,
  erc20TransferData,
  STORAGE_CODE,
  storageData,
} from './contracts.js';
import { benchCommon, tunedVM } from './ejs.js';
import {
  fromHex,
  type GenesisAccountJson,
  type GenesisJson,
  genesisBlock,
  genesisJson,
  hex,
  loadGenesisState,
  qty,
} from './genesis.js';
import { type ChainFiles, type ChainMeta, type ChainParams, cacheDir, chainFiles } from './params.js';

interface Secp256k1Native {
  ecdsaSign(msg32: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  publicKeyCreate(privateKey: Uint8Array, compressed: boolean): Uint8Array;
}
const secp256k1 = createRequire(import.meta.url)('secp256k1') as Secp256k1Native;

export const ERC20_ADDRESS = '0x2000000000000000000000000000000000000020';
export const COMPUTE_ADDRESS = '0xc000000000000000000000000000000000000c0d';
/** The storage workload's contracts: copies of STORAGE_CODE, so its slots spread over several accounts. */
export const STORAGE_ADDRESSES = [1, 2, 3, 4, 5, 6, 7, 8].map(
  (i) => `0x5700000000000000000000000000000000000${i.toString(16).padStart(3, '0')}`,
);
/** Rounds of the storage loop per call, and the gas limit given per round (a fresh slot's SSTORE plus two reads). */
const STORAGE_ROUNDS: readonly [number, number] = [20, 60];
const STORAGE_GAS_PER_ROUND = 27_000;
export const COINBASE = '0xfee0000000000000000000000000000000000fee';
const GENESIS_TIME = 1_700_000_000n;
const BLOCK_TIME = 2n;
const ETH = 10n ** 18n;
const SENDER_BALANCE = 1_000_000n * ETH;
const SENDER_TOKENS = 10n ** 30n;
const GWEI = 1_000_000_000n;
const MAX_FEE = 1000n * GWEI;
const ERC20_GAS_LIMIT = 80_000n;

type Kind = 'eth' | 'erc20' | 'compute' | 'storage';

interface Sender {
  readonly key: Uint8Array;
  readonly address: Uint8Array;
  nonce: bigint;
}

const utf8 = (s: string) => new TextEncoder().encode(s);
const word = (v: bigint) => `0x${v.toString(16).padStart(64, '0')}`;

function u32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Sender i's key: keccak256("tern-bench-import-key" ‖ u32(i)), valid for every index in practice. */
export function senderKey(i: number): Uint8Array {
  return keccak_256(concat(utf8('tern-bench-import-key'), u32(i)));
}

export function addressOf(key: Uint8Array): Uint8Array {
  return keccak_256(secp256k1.publicKeyCreate(key, false).subarray(1)).subarray(12);
}

function recipientAddress(i: number): Uint8Array {
  return keccak_256(concat(utf8('tern-bench-import-recipient'), u32(i))).subarray(12);
}

function buildGenesis(p: ChainParams, senders: readonly Sender[]): GenesisJson {
  const alloc: Record<string, GenesisAccountJson> = {};
  const tokenStorage: Record<string, string> = {};
  for (const s of senders) {
    alloc[hex(s.address).slice(2)] = { balance: qty(SENDER_BALANCE) };
    tokenStorage[hex(erc20BalanceSlot(s.address))] = word(SENDER_TOKENS);
  }
  alloc[ERC20_ADDRESS.slice(2)] = { balance: '0x0', nonce: '0x1', code: hex(ERC20_CODE), storage: tokenStorage };
  alloc[COMPUTE_ADDRESS.slice(2)] = { balance: '0x0', nonce: '0x1', code: hex(COMPUTE_CODE) };
  // Only in chains that call them: the other workloads' genesis (and cached chains) stay as they were.
  if ((p.mix.storage ?? 0) > 0) {
    for (const a of STORAGE_ADDRESSES) alloc[a.slice(2)] = { balance: '0x0', nonce: '0x1', code: hex(STORAGE_CODE) };
  }
  alloc[BEACON_ROOTS_ADDRESS.slice(2)] = { balance: '0x0', nonce: '0x1', code: hex(BEACON_ROOTS_CODE) };
  return genesisJson({ chainId: p.chainId, timestamp: GENESIS_TIME, gasLimit: BigInt(p.gasLimit), alloc });
}

function signTx(
  common: Common,
  sender: Sender,
  fields: { to: Uint8Array; value: bigint; data: Uint8Array; gas: bigint },
) {
  const unsigned = createFeeMarket1559Tx(
    {
      chainId: common.chainId(),
      nonce: sender.nonce,
      maxPriorityFeePerGas: GWEI,
      maxFeePerGas: MAX_FEE,
      gasLimit: fields.gas,
      to: fields.to,
      value: fields.value,
      data: fields.data,
    },
    { common },
  );
  const { signature, recid } = secp256k1.ecdsaSign(unsigned.getHashedMessageToSign(), sender.key);
  sender.nonce++;
  return unsigned.addSignature(BigInt(recid), signature.subarray(0, 32), signature.subarray(32, 64));
}

export type GenerateProgress = (message: string) => void;

/**
 * Generates the chain for `p` into `dir` (genesis.json, chain.rlp, meta.json; meta.json last, so a complete
 * cache entry is one with meta.json). Returns the metadata.
 */
export async function generateChain(p: ChainParams, dir: string, progress: GenerateProgress): Promise<ChainMeta> {
  const started = performance.now();
  const files = chainFiles(dir);
  mkdirSync(dir, { recursive: true });
  const senders: Sender[] = Array.from({ length: p.senders }, (_, i) => {
    const key = senderKey(i);
    return { key, address: addressOf(key), nonce: 0n };
  });
  const recipients: Uint8Array[] = [
    ...senders.map((s) => s.address),
    ...Array.from({ length: p.recipients }, (_, i) => recipientAddress(i)),
  ];
  const genesis = buildGenesis(p, senders);
  writeFileSync(files.genesis, `${JSON.stringify(genesis, null, 1)}\n`);

  const common = benchCommon(BigInt(p.chainId));
  const vm: VM = await tunedVM(common);
  const genesisRoot = await loadGenesisState(vm.stateManager as never, genesis);
  let parent: Block = genesisBlock(genesis, common, genesisRoot);
  const genesisHash = hex(parent.hash());

  const random = sfc32Rng(p.seed).float;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const storageShare = p.mix.storage ?? 0;
  const total = p.mix.eth + p.mix.erc20 + p.mix.compute + storageShare;
  const kindOf = (): Kind => {
    const r = random() * total;
    if (r < p.mix.eth) return 'eth';
    if (r < p.mix.eth + p.mix.erc20) return 'erc20';
    return r < p.mix.eth + p.mix.erc20 + p.mix.compute ? 'compute' : 'storage';
  };
  // `storage` is counted only in chains that have it (the meta of the other workloads keeps its shape).
  const txsByKind: Record<Kind, number> = { eth: 0, erc20: 0, compute: 0, storage: 0 };
  const gasByKind: Record<Kind, number> = { eth: 0, erc20: 0, compute: 0, storage: 0 };
  let computeOverheadSum = 0;
  let storageRoundsSum = 0;
  let txs = 0;
  let gasUsed = 0;
  // The first sender's token balance, tracked to check the contract at the end.
  const probeHolder = senders[0] as Sender;
  let probeTokens = SENDER_TOKENS;

  const tmp = `${files.chain}.tmp`;
  const out = createWriteStream(tmp);
  let chainBytes = 0;
  for (let n = 1; n <= p.blocks; n++) {
    const number = BigInt(n);
    const kinds: Kind[] = [];
    const rounds: number[] = [];
    const transactions: FeeMarket1559Tx[] = [];
    // Fill the block by estimated gas: the ERC-20 estimate and the compute overhead are the means measured over
    // the blocks so far (deterministic, as everything here), so blocks settle close to the target.
    const erc20Estimate = txsByKind.erc20 > 0 ? Math.round(gasByKind.erc20 / txsByKind.erc20) : 45_000;
    const computeOverhead = txsByKind.compute > 0 ? Math.round(computeOverheadSum / txsByKind.compute) : 40_000;
    for (let estimate = 0; ; ) {
      const kind = kindOf();
      const sender = pick(senders);
      let txRounds = 0;
      if (kind === 'eth') {
        if (estimate + 21_000 > p.blockGas) break;
        estimate += 21_000;
        transactions.push(
          signTx(common, sender, {
            to: pick(recipients),
            value: 1n + BigInt(Math.floor(random() * 1e9)),
            data: new Uint8Array(0),
            gas: 21_000n,
          }),
        );
      } else if (kind === 'erc20') {
        if (estimate + erc20Estimate > p.blockGas) break;
        estimate += erc20Estimate;
        const amount = 1n + BigInt(Math.floor(random() * 1e6));
        const to = pick(recipients);
        transactions.push(
          signTx(common, sender, {
            to: fromHex(ERC20_ADDRESS),
            value: 0n,
            data: erc20TransferData(to, amount),
            gas: ERC20_GAS_LIMIT,
          }),
        );
        if (sender === probeHolder) probeTokens -= amount;
        if (to === probeHolder.address) probeTokens += amount;
      } else if (kind === 'storage') {
        const [min, max] = STORAGE_ROUNDS;
        const r = min + Math.floor(random() * (max - min + 1));
        // Block filling by the mean gas per round measured so far (fresh slots cost more early on).
        const perRound = txsByKind.storage > 0 ? gasByKind.storage / storageRoundsSum : 15_000;
        const gas = Math.round(r * perRound + 30_000);
        if (estimate + gas > p.blockGas) break;
        estimate += gas;
        txRounds = r;
        transactions.push(
          signTx(common, sender, {
            to: fromHex(pick(STORAGE_ADDRESSES)),
            value: 0n,
            data: storageData(r, BigInt(Math.floor(random() * 2 ** 48))),
            gas: BigInt(r * STORAGE_GAS_PER_ROUND + 60_000),
          }),
        );
      } else {
        const [min, max] = p.computeRounds;
        const r = min + Math.floor(random() * (max - min + 1));
        txRounds = r;
        const gas = r * COMPUTE_GAS_PER_ROUND + computeOverhead;
        if (estimate + gas > p.blockGas) break;
        estimate += gas;
        transactions.push(
          signTx(common, sender, {
            to: fromHex(COMPUTE_ADDRESS),
            value: 0n,
            data: computeData(r, BigInt(Math.floor(random() * 2 ** 48))),
            gas: BigInt(r * COMPUTE_GAS_PER_ROUND + 70_000),
          }),
        );
      }
      kinds.push(kind);
      rounds.push(txRounds);
    }
    const header = {
      parentHash: parent.hash(),
      number,
      timestamp: GENESIS_TIME + number * BLOCK_TIME,
      gasLimit: BigInt(p.gasLimit),
      coinbase: fromHex(COINBASE),
      mixHash: keccak_256(concat(utf8('randao'), u32(n))),
      parentBeaconBlockRoot: keccak_256(concat(utf8('beacon'), u32(n))),
      difficulty: 0n,
      baseFeePerGas: parent.header.calcNextBaseFee(),
      excessBlobGas: parent.header.calcNextExcessBlobGas(common),
      blobGasUsed: 0n,
      withdrawalsRoot: KECCAK256_RLP,
    };
    const draft = createBlock({ header, transactions, withdrawals: [] }, { common });
    const result = await runBlock(vm, {
      block: draft,
      generate: true,
      skipBlockValidation: true,
      skipHeaderValidation: true,
    });
    result.results.forEach((r, i) => {
      const kind = kinds[i] as Kind;
      if (r.execResult.exceptionError !== undefined) {
        throw new Error(`generator: block ${n} ${kind} transaction ${i} failed: ${r.execResult.exceptionError.error}`);
      }
      txsByKind[kind]++;
      gasByKind[kind] += Number(r.totalGasSpent);
      if (kind === 'storage') storageRoundsSum += rounds[i] as number;
      if (kind === 'compute')
        computeOverheadSum += Number(r.totalGasSpent) - (rounds[i] as number) * COMPUTE_GAS_PER_ROUND;
    });
    txs += transactions.length;
    const block = createBlock(
      {
        header: {
          ...header,
          stateRoot: result.stateRoot,
          receiptTrie: result.receiptsRoot,
          logsBloom: result.logsBloom,
          gasUsed: result.gasUsed,
          transactionsTrie: await genTransactionsTrieRoot(transactions),
        },
        transactions,
        withdrawals: [],
      },
      { common },
    );
    gasUsed += Number(block.header.gasUsed);
    const raw = block.serialize();
    chainBytes += raw.length;
    if (!out.write(raw)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    parent = block;
    if (n % 20 === 0 || n === p.blocks) {
      const secs = (performance.now() - started) / 1000;
      progress(
        `generated block ${n}/${p.blocks}: ${block.transactions.length} txs, ${(Number(block.header.gasUsed) / 1e6).toFixed(1)} Mgas, ${secs.toFixed(0)}s`,
      );
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  renameSync(tmp, files.chain);

  // Sanity: the token contract holds the first sender's balance as the transfers moved it.
  const probe = await vm.evm.runCall({
    to: new Address(fromHex(ERC20_ADDRESS)),
    caller: new Address(probeHolder.address),
    data: erc20BalanceOfData(probeHolder.address),
    gasLimit: 100_000n,
  });
  const balance = BigInt(hex(probe.execResult.returnValue));
  if (balance !== probeTokens) throw new Error(`generator: ERC-20 balanceOf is ${balance}, expected ${probeTokens}`);

  const meta: ChainMeta = {
    params: p,
    blocks: p.blocks,
    txs,
    gasUsed,
    txsByKind:
      storageShare > 0 ? txsByKind : { eth: txsByKind.eth, erc20: txsByKind.erc20, compute: txsByKind.compute },
    gasByKind:
      storageShare > 0 ? gasByKind : { eth: gasByKind.eth, erc20: gasByKind.erc20, compute: gasByKind.compute },
    genesisHash,
    headHash: hex(parent.hash()),
    headStateRoot: hex(parent.header.stateRoot),
    chainBytes,
    generatedSeconds: (performance.now() - started) / 1000,
  };
  writeFileSync(files.meta, `${JSON.stringify(meta, null, 1)}\n`);
  return meta;
}

/** The cached chain for `p`, generated first if the cache has no complete entry. */
export async function ensureChain(
  p: ChainParams,
  progress: GenerateProgress,
): Promise<{ files: ChainFiles; meta: ChainMeta; cached: boolean }> {
  const dir = cacheDir(p);
  const files = chainFiles(dir);
  if (existsSync(files.meta) && existsSync(files.chain) && existsSync(files.genesis)) {
    return { files, meta: JSON.parse(readFileSync(files.meta, 'utf8')) as ChainMeta, cached: true };
  }
  rmSync(dir, { recursive: true, force: true });
  progress(`generating the chain into ${dir}`);
  const meta = await generateChain(p, dir, progress);
  return { files, meta, cached: false };
}
