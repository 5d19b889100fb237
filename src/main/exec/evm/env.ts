// The block environment a transaction executes in: header fields the EVM reads (NUMBER, TIMESTAMP, COINBASE,
// GASLIMIT, BASEFEE, PREVRANDAO/DIFFICULTY, BLOBBASEFEE, BLOCKHASH), the hardfork and its rules, and the derived
// values the state transition needs (blob base fee, blob limit). Built once per block.
import type { Common } from '@ethereumjs/common';
import type { Address } from '@ethereumjs/util';
import { TernError } from '../../common/errors.js';
import { blobBaseFee, GAS_PER_BLOB } from '../../primitives/block/fees.js';
import { BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN, BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE } from './fees.js';
import type { OpForks } from './op/forks.js';

/** Which protocol rules apply, decided once per block from the hardfork. */
export interface ForkRules {
  readonly homestead: boolean;
  /** EIP-150 */
  readonly tangerineWhistle: boolean;
  /** EIP-158/161 */
  readonly spuriousDragon: boolean;
  readonly byzantium: boolean;
  /** EIP-2028 calldata price */
  readonly istanbul: boolean;
  /** EIP-2929/2930 */
  readonly berlin: boolean;
  /** EIP-1559, EIP-3529 */
  readonly london: boolean;
  /** The merge: PREVRANDAO */
  readonly paris: boolean;
  /** EIP-3651 warm coinbase, EIP-3860 init code */
  readonly shanghai: boolean;
  /** EIP-4844, EIP-6780, EIP-1153 */
  readonly cancun: boolean;
  /** EIP-7702, EIP-7623, EIP-7691 */
  readonly prague: boolean;
  /** EIP-7825 transaction gas cap, EIP-7594 blob limit per transaction */
  readonly osaka: boolean;
}

/** Header fields of the block, as given by the caller. */
export interface BlockEnvInput {
  /** The chain's Common (chain id, parameters); the block's hardfork is given separately. */
  common: Common;
  /** The hardfork of this block (@ethereumjs/common names: 'cancun', 'prague', ...). */
  hardfork: string;
  number: bigint;
  timestamp: bigint;
  coinbase: Address;
  gasLimit: bigint;
  /** EIP-1559 base fee; required from London on. */
  baseFee?: bigint;
  /** The beacon randomness (header mixHash), 32 bytes; required from the merge on. */
  prevRandao?: Uint8Array;
  /** Proof-of-work difficulty, before the merge. */
  difficulty?: bigint;
  /** EIP-4844 excess blob gas; required from Cancun on. */
  excessBlobGas?: bigint;
  /** EIP-4788 parent beacon block root (the system call that stores it is block-level). */
  parentBeaconBlockRoot?: Uint8Array;
  /** The blob base fee update fraction; defaults to Cancun's or Prague's by hardfork. */
  blobBaseFeeUpdateFraction?: bigint;
  /** Most blobs a block may carry; defaults to 6 (Cancun) or 9 (Prague). */
  maxBlobsPerBlock?: number;
  /** Hash of an earlier block by number (BLOCKHASH; the EVM asks only for the previous 256). */
  getBlockHash?: (number: bigint) => Uint8Array | undefined;
  /** OP chains: the OP upgrades active in this block (deposits, fee vaults, L1 cost, precompile changes). */
  op?: OpForks | undefined;
}

/** The header as @ethereumjs/evm reads it (its `Block` type, structurally). */
export interface EvmBlock {
  header: {
    number: bigint;
    coinbase: Address;
    timestamp: bigint;
    difficulty: bigint;
    prevRandao: Uint8Array;
    gasLimit: bigint;
    baseFeePerGas?: bigint;
    getBlobGasPrice(): bigint | undefined;
  };
}

/** The resolved environment: everything applyTransaction reads about the block. */
export interface BlockEnv {
  readonly common: Common;
  readonly hardfork: string;
  readonly rules: ForkRules;
  readonly chainId: bigint;
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly coinbase: Address;
  readonly gasLimit: bigint;
  readonly baseFee: bigint | undefined;
  readonly prevRandao: Uint8Array;
  readonly difficulty: bigint;
  readonly excessBlobGas: bigint | undefined;
  /** Price of one blob gas in this block (undefined before Cancun). */
  readonly blobBaseFee: bigint | undefined;
  readonly maxBlobsPerBlock: number;
  readonly maxBlobGasPerBlock: bigint;
  readonly parentBeaconBlockRoot: Uint8Array | undefined;
  readonly getBlockHash: (number: bigint) => Uint8Array | undefined;
  /** OP chains only: the active OP upgrades. */
  readonly op: OpForks | undefined;
  /** The same fields in the shape @ethereumjs/evm's runCall takes. */
  readonly evmBlock: EvmBlock;
}

const ZERO32 = new Uint8Array(32);

/** The rules of a hardfork (ordering from @ethereumjs/common). */
export function forkRules(common: Common, hardfork: string): ForkRules {
  const gte = (hf: string) => common.hardforkGteHardfork(hardfork, hf);
  return {
    homestead: gte('homestead'),
    tangerineWhistle: gte('tangerineWhistle'),
    spuriousDragon: gte('spuriousDragon'),
    byzantium: gte('byzantium'),
    istanbul: gte('istanbul'),
    berlin: gte('berlin'),
    london: gte('london'),
    paris: gte('paris'),
    shanghai: gte('shanghai'),
    cancun: gte('cancun'),
    prague: gte('prague'),
    osaka: gte('osaka'),
  };
}

/** Checks and completes the block's fields. Throws BLOCK_ENV when a field its hardfork needs is missing. */
export function createBlockEnv(input: BlockEnvInput): BlockEnv {
  const { common, hardfork } = input;
  const rules = forkRules(common, hardfork);
  const missing = (field: string): never => {
    throw new TernError('BLOCK_ENV', `block ${input.number}: ${field} is required from ${hardfork} on`);
  };
  if (rules.london && input.baseFee === undefined) missing('baseFee');
  if (rules.paris && input.prevRandao === undefined) missing('prevRandao');
  if (rules.cancun && input.excessBlobGas === undefined) missing('excessBlobGas');
  if (input.prevRandao !== undefined && input.prevRandao.length !== 32) {
    throw new TernError('BLOCK_ENV', `block ${input.number}: prevRandao must be 32 bytes`);
  }
  const baseFeeUpdateFraction =
    input.blobBaseFeeUpdateFraction ??
    (rules.prague ? BLOB_BASE_FEE_UPDATE_FRACTION_PRAGUE : BLOB_BASE_FEE_UPDATE_FRACTION_CANCUN);
  const fee = rules.cancun ? blobBaseFee(input.excessBlobGas ?? 0n, { baseFeeUpdateFraction }) : undefined;
  const maxBlobs = input.maxBlobsPerBlock ?? (rules.prague ? 9 : rules.cancun ? 6 : 0);
  const prevRandao = input.prevRandao ?? ZERO32;
  // Post-merge DIFFICULTY reads 0 (the opcode itself becomes PREVRANDAO).
  const difficulty = rules.paris ? 0n : (input.difficulty ?? 0n);
  const getBlockHash = input.getBlockHash ?? (() => undefined);
  const evmBlock: EvmBlock = {
    header: {
      number: input.number,
      coinbase: input.coinbase,
      timestamp: input.timestamp,
      difficulty,
      prevRandao,
      gasLimit: input.gasLimit,
      baseFeePerGas: input.baseFee,
      getBlobGasPrice: () => fee,
    },
  };
  return {
    common,
    hardfork,
    rules,
    chainId: common.chainId(),
    number: input.number,
    timestamp: input.timestamp,
    coinbase: input.coinbase,
    gasLimit: input.gasLimit,
    baseFee: input.baseFee,
    prevRandao,
    difficulty,
    excessBlobGas: input.excessBlobGas,
    blobBaseFee: fee,
    maxBlobsPerBlock: maxBlobs,
    maxBlobGasPerBlock: GAS_PER_BLOB * BigInt(maxBlobs),
    parentBeaconBlockRoot: input.parentBeaconBlockRoot,
    getBlockHash,
    op: input.op,
    evmBlock,
  };
}
