// The benchmark chain's parameters, their defaults, and where a generated chain is cached: bench/.cache/
// import-<hash of the parameters and the generator version>/ holds genesis.json, chain.rlp and meta.json.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the generator's output changes for the same parameters. */
export const GENERATOR_VERSION = 1;

export interface ChainParams {
  readonly chainId: number;
  readonly blocks: number;
  /** Gas used per block the generator fills to (it stops before a transaction would pass it). */
  readonly blockGas: number;
  readonly gasLimit: number;
  /** Funded accounts that send the transactions. */
  readonly senders: number;
  /** Extra, initially empty addresses that receive ETH and tokens besides the senders. */
  readonly recipients: number;
  /**
   * Relative shares of transaction counts: ETH transfers, ERC-20 transfers, compute-contract calls, storage-contract
   * calls (absent = 0, so the parameters, hash and cached chain of the workloads without it are unchanged).
   */
  readonly mix: { readonly eth: number; readonly erc20: number; readonly compute: number; readonly storage?: number };
  /** Rounds of the compute loop per call, drawn uniformly from [min, max] (~132 gas per round). */
  readonly computeRounds: readonly [min: number, max: number];
  readonly seed: number;
}

export const DEFAULT_PARAMS: ChainParams = {
  chainId: 1337,
  blocks: 200,
  blockGas: 16_000_000,
  gasLimit: 30_000_000,
  senders: 500,
  recipients: 2000,
  mix: { eth: 50, erc20: 40, compute: 10 },
  computeRounds: [300, 700],
  seed: 1,
};

/**
 * The named workloads: the mix, the transfer/ERC-20 mix without compute (issue 3's target workload: ≥ 2× the tuned
 * baseline "on the transfer/ERC-20 mix"), and each kind alone (same block size and accounts): `compute` (keccak,
 * modular arithmetic and memory in a loop) and `storage` (SLOAD/SSTORE over many slots of several contracts).
 */
export const WORKLOADS: Readonly<Record<string, ChainParams['mix']>> = {
  mix: DEFAULT_PARAMS.mix,
  'transfers-erc20': { eth: 55, erc20: 45, compute: 0 },
  transfers: { eth: 1, erc20: 0, compute: 0 },
  erc20: { eth: 0, erc20: 1, compute: 0 },
  compute: { eth: 0, erc20: 0, compute: 1 },
  storage: { eth: 0, erc20: 0, compute: 0, storage: 1 },
};

export function paramsHash(p: ChainParams): string {
  return createHash('sha256')
    .update(JSON.stringify({ v: GENERATOR_VERSION, p }))
    .digest('hex')
    .slice(0, 12);
}

/** The repository root: the nearest ancestor of this module with a package.json (works from src and dist). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('bench/import: no package.json above the module');
    dir = up;
  }
  return dir;
}

export function cacheDir(p: ChainParams): string {
  return join(repoRoot(), 'bench', '.cache', `import-${paramsHash(p)}`);
}

export interface ChainFiles {
  readonly dir: string;
  readonly genesis: string;
  readonly chain: string;
  readonly meta: string;
}

export function chainFiles(dir: string): ChainFiles {
  return { dir, genesis: join(dir, 'genesis.json'), chain: join(dir, 'chain.rlp'), meta: join(dir, 'meta.json') };
}

/** What the generator records next to the chain. */
export interface ChainMeta {
  readonly params: ChainParams;
  readonly blocks: number;
  readonly txs: number;
  readonly gasUsed: number;
  readonly txsByKind: {
    readonly eth: number;
    readonly erc20: number;
    readonly compute: number;
    readonly storage?: number;
  };
  readonly gasByKind: {
    readonly eth: number;
    readonly erc20: number;
    readonly compute: number;
    readonly storage?: number;
  };
  readonly genesisHash: string;
  readonly headHash: string;
  readonly headStateRoot: string;
  readonly chainBytes: number;
  readonly generatedSeconds: number;
}
