// Consensus checks of a header against its parent, for post-merge Ethereum (the chain tern-exec imports and the
// rules the OP Stack inherits): numbering, time, gas limit bounds, base fee, blob gas, and which optional fields
// each fork requires. On OP chains (config.optimism) op-geth's rules replace some: the gas limit may change freely,
// extraData is empty before Holocene and carries the EIP-1559 parameters after (Jovian: and the minimum base fee),
// the base fee follows nextBaseFeeOp, difficulty is 0 from genesis, and from Jovian blobGasUsed holds the DA
// footprint (at most the gas limit).
import { TernError } from '../../common/errors.js';
import {
  type BaseFeeParams,
  ETHEREUM_BASE_FEE_PARAMS,
  GAS_PER_BLOB,
  nextBaseFee,
  nextExcessBlobGas,
} from '../../primitives/block/fees.js';
import { EMPTY_UNCLE_HASH, type Header } from '../../primitives/block/header.js';
import { equalBytes as equal } from '../../primitives/bytes.js';
import { blobParamsAt, type ChainConfig, isBlockForkActive, isTimeForkActive } from '../../primitives/chainConfig.js';
import { nextBaseFeeOp, opBaseFeeConfig, validateOpExtraData } from '../../primitives/op/eip1559.js';

export const MAX_EXTRA_DATA = 32;
export const GAS_LIMIT_BOUND_DIVISOR = 1024n;
export const MIN_GAS_LIMIT = 5000n;
export const MAX_GAS_LIMIT = 0x7fffffffffffffffn;

function bad(code: string, message: string): never {
  throw new TernError(code, message);
}

export interface HeaderRules {
  /** Base fee parameters at this block (OP chains change them by fork and system config). */
  baseFeeParams?: (header: Header) => BaseFeeParams;
  /** OP chains relax or replace some Ethereum rules; defaults to whether the config has an optimism section. */
  optimism?: boolean;
}

export function validateHeader(config: ChainConfig, header: Header, parent: Header, given: HeaderRules = {}): void {
  const rules: HeaderRules = { ...given, optimism: given.optimism ?? config.optimism !== undefined };
  const opFees = rules.optimism && config.optimism !== undefined ? opBaseFeeConfig(config) : undefined;
  if (header.number !== parent.number + 1n) {
    bad('HEADER_NUMBER', `invalid block number: have ${header.number}, want ${parent.number + 1n}`);
  }
  if (header.timestamp <= parent.timestamp) {
    bad('HEADER_TIMESTAMP', `invalid timestamp: ${header.timestamp} is not after the parent's ${parent.timestamp}`);
  }
  if (header.extraData.length > MAX_EXTRA_DATA) {
    bad('HEADER_EXTRA_DATA', `extra-data too long: ${header.extraData.length} > ${MAX_EXTRA_DATA}`);
  }
  if (opFees !== undefined) {
    try {
      validateOpExtraData(opFees, header.timestamp, header.extraData);
    } catch (err) {
      bad('HEADER_EXTRA_DATA', `invalid extraData: ${(err as Error).message}`);
    }
  }
  if (header.gasLimit > MAX_GAS_LIMIT)
    bad('HEADER_GAS_LIMIT', `invalid gasLimit: have ${header.gasLimit}, max ${MAX_GAS_LIMIT}`);
  if (header.gasUsed > header.gasLimit) {
    bad('HEADER_GAS_USED', `invalid gasUsed: have ${header.gasUsed}, gasLimit ${header.gasLimit}`);
  }

  const london = isBlockForkActive(config, 'londonBlock', header.number);
  const parentLondon = isBlockForkActive(config, 'londonBlock', parent.number);
  // At the London fork block the parent's limit doubles for the bound check (elasticity).
  const parentLimit = london && !parentLondon ? parent.gasLimit * 2n : parent.gasLimit;
  const diff = header.gasLimit > parentLimit ? header.gasLimit - parentLimit : parentLimit - header.gasLimit;
  const limit = parentLimit / GAS_LIMIT_BOUND_DIVISOR;
  if (!rules.optimism && (diff >= limit || header.gasLimit < MIN_GAS_LIMIT)) {
    bad('HEADER_GAS_LIMIT', `invalid gas limit: have ${header.gasLimit}, want ${parentLimit} +-= ${limit - 1n}`);
  }

  if (london) {
    if (header.baseFeePerGas === undefined) bad('HEADER_BASE_FEE', 'header is missing baseFee');
    const want = opFees
      ? nextBaseFeeOp(parent, opFees, header.timestamp)
      : parentLondon
        ? nextBaseFee(
            { gasLimit: parent.gasLimit, gasUsed: parent.gasUsed, baseFeePerGas: parent.baseFeePerGas ?? 0n },
            rules.baseFeeParams?.(header) ?? ETHEREUM_BASE_FEE_PARAMS,
          )
        : 1_000_000_000n;
    if (header.baseFeePerGas !== want) {
      bad(
        'HEADER_BASE_FEE',
        `invalid baseFee: have ${header.baseFeePerGas}, want ${want}, parentBaseFee ${parent.baseFeePerGas}, parentGasUsed ${parent.gasUsed}`,
      );
    }
  } else if (header.baseFeePerGas !== undefined) {
    bad('HEADER_BASE_FEE', 'header has a baseFee before London');
  }

  // OP chains start after the merge (Bedrock): no proof of work from genesis.
  const merged = config.terminalTotalDifficulty !== undefined || rules.optimism === true;
  if (merged) {
    if (header.difficulty !== 0n) bad('HEADER_DIFFICULTY', `invalid difficulty: have ${header.difficulty}, want 0`);
    if (header.nonce.some((b) => b !== 0)) bad('HEADER_NONCE', 'invalid nonce: have non-zero, want 0');
    if (!equal(header.uncleHash, EMPTY_UNCLE_HASH))
      bad('HEADER_UNCLES', 'invalid uncle hash: uncles are not allowed after the merge');
  }

  const t = header.timestamp;
  const shanghai = isTimeForkActive(config, 'shanghaiTime', t);
  if (shanghai !== (header.withdrawalsRoot !== undefined)) {
    bad(
      'HEADER_WITHDRAWALS',
      shanghai ? 'missing withdrawalsHash' : 'invalid withdrawalsHash: have non-nil, expected nil',
    );
  }
  const cancun = isTimeForkActive(config, 'cancunTime', t);
  if (cancun) {
    if (header.blobGasUsed === undefined) bad('HEADER_BLOB_GAS', 'header is missing blobGasUsed');
    if (header.excessBlobGas === undefined) bad('HEADER_BLOB_GAS', 'header is missing excessBlobGas');
    if (header.parentBeaconBlockRoot === undefined) bad('HEADER_BEACON_ROOT', 'header is missing beaconRoot');
    if (rules.optimism && isTimeForkActive(config, 'jovianTime', t) && header.blobGasUsed > header.gasLimit) {
      bad(
        'HEADER_BLOB_GAS',
        `DA footprint (blobGasUsed) ${header.blobGasUsed} exceeds the gas limit ${header.gasLimit}`,
      );
    }
    if (!rules.optimism) {
      const params = blobParamsAt(config, t);
      if (params) {
        const max = BigInt(params.max) * GAS_PER_BLOB;
        if (header.blobGasUsed > max)
          bad('HEADER_BLOB_GAS', `blob gas used ${header.blobGasUsed} exceeds maximum allowance ${max}`);
        if (header.blobGasUsed % GAS_PER_BLOB !== 0n) {
          bad(
            'HEADER_BLOB_GAS',
            `blob gas used ${header.blobGasUsed} not a multiple of blob gas per blob ${GAS_PER_BLOB}`,
          );
        }
        const parentCancun = isTimeForkActive(config, 'cancunTime', parent.timestamp);
        const want = parentCancun ? nextExcessBlobGas(parent, blobParamsAt(config, parent.timestamp) ?? params) : 0n;
        if (header.excessBlobGas !== want) {
          bad(
            'HEADER_BLOB_GAS',
            `invalid excessBlobGas: have ${header.excessBlobGas}, want ${want}, parentExcessBlobGas ${parent.excessBlobGas}, parentBlobGasUsed ${parent.blobGasUsed}`,
          );
        }
      }
    }
  } else if (
    header.blobGasUsed !== undefined ||
    header.excessBlobGas !== undefined ||
    header.parentBeaconBlockRoot !== undefined
  ) {
    bad('HEADER_BLOB_GAS', 'header has Cancun fields before Cancun');
  }
  const prague = isTimeForkActive(config, 'pragueTime', t);
  if (prague !== (header.requestsHash !== undefined)) {
    bad('HEADER_REQUESTS', prague ? 'missing requestsHash' : 'invalid requestsHash: have non-nil, expected nil');
  }
}
