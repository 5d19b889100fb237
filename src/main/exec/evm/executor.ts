// The one place execution is set up, for import, block building, eth_call/estimateGas/createAccessList, tracing and
// witness execution alike: the chain's Common (with the KZG crypto of the point-evaluation precompile), an
// Executor over a state reader, and the block environment of a header — its hardfork, blob parameters and OP part.
// The OP part is what selects the OP precompile set (P256VERIFY from Fjord, the Granite/Isthmus/Jovian input limits:
// op/precompiles.ts): Executor.startBlock rebuilds the precompile map from it, so every path that builds its
// environment here runs the same precompiles a block does.
import { type Common, createCustomCommon, Mainnet } from '@ethereumjs/common';
import { Address } from '@ethereumjs/util';
import type { Header } from '../../primitives/block/header.js';
import { blobParamsAt, type ChainConfig, hardforkAt } from '../../primitives/chainConfig.js';
import { createKzg } from '../../protocol/crypto/kzg.js';
import { FlatState, type FlatStateOptions } from '../state/flatState.js';
import type { StateReader } from '../state/interface.js';
import { type BlockEnv, createBlockEnv } from './env.js';
import { opForksAt } from './op/forks.js';
import { Executor } from './transition.js';

/** How an executor is set up beyond its chain and state. */
export interface ExecutorSetup {
  /** The KECCAK256 opcode's hash function (--vmdebug records preimages through it); the native hasher otherwise. */
  keccak256?: ((data: Uint8Array) => Uint8Array) | undefined;
  /** The flat state overlay's cross-block caches (--cache.snapshot, --snapshot). */
  flatState?: Partial<FlatStateOptions> | undefined;
}

/** The chain's Common: its chain id, Mainnet's parameters, the KZG crypto (loaded on first use). */
export function chainCommon(config: ChainConfig, keccak256?: (data: Uint8Array) => Uint8Array): Common {
  return createCustomCommon({ chainId: Number(config.chainId) }, Mainnet, {
    customCrypto: { kzg: createKzg(), ...(keccak256 !== undefined ? { keccak256 } : {}) },
  });
}

/** An executor for the chain over `reader` (create once per executing owner, reuse for every block). */
export function createExecutor(config: ChainConfig, reader: StateReader, setup: ExecutorSetup = {}): Promise<Executor> {
  return Executor.create({
    common: chainCommon(config, setup.keccak256),
    state: new FlatState(reader, setup.flatState),
  });
}

/** The header fields a block environment is built from. */
export type EnvHeader = Pick<
  Header,
  | 'number'
  | 'timestamp'
  | 'coinbase'
  | 'gasLimit'
  | 'baseFeePerGas'
  | 'mixHash'
  | 'difficulty'
  | 'excessBlobGas'
  | 'parentBeaconBlockRoot'
>;

/** The relaxations of a call (eth_call, estimateGas, createAccessList, traceCall): geth's vm.Config.NoBaseFee. */
export interface CallFees {
  /** The message pays no gas price: the block's base fee reads zero. */
  readonly noBaseFee: boolean;
  /** The message's blob fee cap is zero: the blob base fee reads zero. */
  readonly noBlobBaseFee: boolean;
}

/**
 * The environment of block `h` on `config`'s chain, for an executor built on `common`: hardfork, blob parameters
 * and, on an OP chain, the active OP upgrades. `call` applies a call's fee relaxations (none for blocks).
 */
export function blockEnv(
  config: ChainConfig,
  common: Common,
  h: EnvHeader,
  getBlockHash: (number: bigint) => Uint8Array | undefined,
  call?: CallFees,
): BlockEnv {
  const blobParams = blobParamsAt(config, h.timestamp);
  const env = createBlockEnv({
    common,
    hardfork: hardforkAt(config, h.number, h.timestamp),
    number: h.number,
    timestamp: h.timestamp,
    coinbase: new Address(h.coinbase),
    gasLimit: h.gasLimit,
    ...(h.baseFeePerGas !== undefined ? { baseFee: call?.noBaseFee === true ? 0n : h.baseFeePerGas } : {}),
    prevRandao: h.mixHash,
    difficulty: h.difficulty,
    ...(h.excessBlobGas !== undefined ? { excessBlobGas: h.excessBlobGas } : {}),
    ...(h.parentBeaconBlockRoot !== undefined ? { parentBeaconBlockRoot: h.parentBeaconBlockRoot } : {}),
    ...(blobParams
      ? { blobBaseFeeUpdateFraction: blobParams.baseFeeUpdateFraction, maxBlobsPerBlock: blobParams.max }
      : {}),
    getBlockHash,
    op: opForksAt(config, h.number, h.timestamp),
  });
  if (call?.noBlobBaseFee !== true || env.blobBaseFee === undefined) return env;
  return {
    ...env,
    blobBaseFee: 0n,
    evmBlock: { header: { ...env.evmBlock.header, getBlobGasPrice: () => 0n } },
  };
}
