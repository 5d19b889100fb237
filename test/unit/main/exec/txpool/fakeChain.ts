// A chain the pool can read without a database: a head header, balances and nonces by address, blocks by hash.
// Tests move the head with `advance` (which bumps nonces as a block including those transactions would).
import { privateKeyToAccount } from 'viem/accounts';
import type { PoolChain, PoolHead } from '../../../../../src/main/exec/txpool/chain.js';
import type { Block } from '../../../../../src/main/primitives/block/block.js';
import type { Header } from '../../../../../src/main/primitives/block/header.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';

export const CHAIN_ID = 3503995874084926;
export const config = parseChainConfig({
  chainId: CHAIN_ID,
  homesteadBlock: 0,
  eip150Block: 0,
  eip155Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
  terminalTotalDifficulty: 0,
  shanghaiTime: 0,
  cancunTime: 0,
});

const Z32 = new Uint8Array(32);

export function header(number: bigint, parentHash: Uint8Array, over: Partial<Header> = {}): Header {
  return {
    parentHash,
    uncleHash: Z32,
    coinbase: new Uint8Array(20),
    stateRoot: Z32,
    transactionsRoot: Z32,
    receiptsRoot: Z32,
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: 1000n + number,
    extraData: new Uint8Array(0),
    mixHash: Z32,
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000_000n,
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    ...over,
  };
}

const hashOf = (n: bigint) => {
  const h = new Uint8Array(32);
  h[31] = Number(n & 0xffn);
  h[30] = Number((n >> 8n) & 0xffn);
  h[0] = 0xaa;
  return h;
};

export class FakeChain implements PoolChain {
  readonly config = config;
  readonly accounts = new Map<string, { nonce: bigint; balance: bigint }>();
  readonly blocks = new Map<string, Block>();
  head: PoolHead = { header: header(1n, hashOf(0n)), hash: hashOf(1n) };

  fund(address: string, balance: bigint, nonce = 0n): void {
    this.accounts.set(address.toLowerCase(), { nonce, balance });
  }

  setNonce(address: string, nonce: bigint): void {
    const a = this.accounts.get(address.toLowerCase()) ?? { nonce: 0n, balance: 0n };
    this.accounts.set(address.toLowerCase(), { ...a, nonce });
  }

  /** A new head on top of the current one. */
  advance(over: Partial<Header> = {}): void {
    const n = this.head.header.number + 1n;
    this.head = { header: header(n, this.head.hash, over), hash: hashOf(n) };
  }

  view() {
    return {
      head: () => this.head,
      account: (address: Uint8Array) =>
        this.accounts.get(`0x${Buffer.from(address).toString('hex')}`) ?? { nonce: 0n, balance: 0n },
      block: (hash: Uint8Array) => this.blocks.get(Buffer.from(hash).toString('hex')),
      release: () => {},
    };
  }
}

export const keys = Array.from({ length: 8 }, (_, i) =>
  privateKeyToAccount(`0x${(i + 1).toString(16).padStart(64, '0')}` as `0x${string}`),
);

export type Key = (typeof keys)[number];

export interface TxSpec {
  nonce: number;
  tip?: bigint;
  feeCap?: bigint;
  gas?: bigint;
  value?: bigint;
  data?: `0x${string}`;
}

/** A signed EIP-1559 transfer as raw bytes. */
export async function tx(key: Key, s: TxSpec): Promise<Uint8Array> {
  const raw = await key.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    nonce: s.nonce,
    gas: s.gas ?? 21000n,
    maxFeePerGas: s.feeCap ?? 2_000_000_000n,
    maxPriorityFeePerGas: s.tip ?? 1_000_000_000n,
    to: '0x00000000000000000000000000000000000000aa',
    value: s.value ?? 0n,
    data: s.data,
  });
  return Uint8Array.from(Buffer.from(raw.slice(2), 'hex'));
}
