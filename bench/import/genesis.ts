// The benchmark chain's genesis in geth's genesis.json format, and the same genesis as ethereumjs sees it: the
// initial state (MerkleStateManager.generateCanonicalGenesis) and the genesis block with the fields geth gives a
// Cancun genesis, so its hash is the one tern-exec init writes.
import { type Block, createBlock } from '@ethereumjs/block';
import type { Common } from '@ethereumjs/common';
import type { MerkleStateManager } from '@ethereumjs/statemanager';
import { KECCAK256_RLP } from '@ethereumjs/util';

export interface GenesisAccountJson {
  balance: string;
  nonce?: string;
  code?: string;
  storage?: Record<string, string>;
}

export interface GenesisJson {
  config: Record<string, unknown>;
  nonce: string;
  timestamp: string;
  extraData: string;
  gasLimit: string;
  difficulty: string;
  mixHash: string;
  coinbase: string;
  number: string;
  gasUsed: string;
  parentHash: string;
  baseFeePerGas: string;
  excessBlobGas: string;
  blobGasUsed: string;
  alloc: Record<string, GenesisAccountJson>;
}

const ZERO32 = `0x${'00'.repeat(32)}`;
export const qty = (n: bigint | number) => `0x${n.toString(16)}`;
export const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
export const fromHex = (h: string) => Uint8Array.from(Buffer.from(h.replace(/^0x/, ''), 'hex'));

/** geth's chain config for a post-merge chain with every fork through Cancun active at genesis. */
export function cancunConfig(chainId: number): Record<string, unknown> {
  return {
    chainId,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    muirGlacierBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    arrowGlacierBlock: 0,
    grayGlacierBlock: 0,
    mergeNetsplitBlock: 0,
    shanghaiTime: 0,
    cancunTime: 0,
    terminalTotalDifficulty: 0,
    terminalTotalDifficultyPassed: true,
    blobSchedule: { cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 } },
  };
}

export function genesisJson(opts: {
  chainId: number;
  timestamp: bigint;
  gasLimit: bigint;
  alloc: Record<string, GenesisAccountJson>;
}): GenesisJson {
  return {
    config: cancunConfig(opts.chainId),
    nonce: '0x0',
    timestamp: qty(opts.timestamp),
    extraData: '0x',
    gasLimit: qty(opts.gasLimit),
    difficulty: '0x0',
    mixHash: ZERO32,
    coinbase: `0x${'00'.repeat(20)}`,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: ZERO32,
    baseFeePerGas: qty(1_000_000_000n),
    excessBlobGas: '0x0',
    blobGasUsed: '0x0',
    alloc: opts.alloc,
  };
}

/** Writes the genesis alloc into an empty state manager and returns the state root. */
export async function loadGenesisState(sm: MerkleStateManager, g: GenesisJson): Promise<Uint8Array> {
  const init: Record<string, [string, string | undefined, Array<[string, string]>, string]> = {};
  for (const [addr, a] of Object.entries(g.alloc)) {
    const storage = Object.entries(a.storage ?? {}).map(([k, v]): [string, string] => [
      `0x${k.replace(/^0x/, '').padStart(64, '0')}`,
      v,
    ]);
    init[`0x${addr.replace(/^0x/, '')}`] = [a.balance, a.code, storage, a.nonce ?? '0x0'];
  }
  await sm.generateCanonicalGenesis(init as never);
  return sm.getStateRoot();
}

/** The genesis block as geth builds it for a Cancun genesis (Genesis.ToBlock). */
export function genesisBlock(g: GenesisJson, common: Common, stateRoot: Uint8Array): Block {
  return createBlock(
    {
      header: {
        number: 0n,
        parentHash: fromHex(g.parentHash),
        coinbase: fromHex(g.coinbase),
        stateRoot,
        gasLimit: BigInt(g.gasLimit),
        gasUsed: 0n,
        timestamp: BigInt(g.timestamp),
        extraData: fromHex(g.extraData),
        mixHash: fromHex(g.mixHash),
        difficulty: 0n,
        nonce: new Uint8Array(8),
        baseFeePerGas: BigInt(g.baseFeePerGas),
        withdrawalsRoot: KECCAK256_RLP,
        blobGasUsed: 0n,
        excessBlobGas: 0n,
        parentBeaconBlockRoot: new Uint8Array(32),
      },
      withdrawals: [],
    },
    { common },
  );
}
