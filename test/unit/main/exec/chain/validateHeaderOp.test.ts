import { describe, expect, it } from 'vitest';
import { validateHeader } from '../../../../../src/main/exec/chain/validateHeader.js';
import { EMPTY_UNCLE_HASH, type Header } from '../../../../../src/main/primitives/block/header.js';
import { parseChainConfig } from '../../../../../src/main/primitives/chainConfig.js';
import { encodeHoloceneExtraData, encodeJovianExtraData } from '../../../../../src/main/primitives/op/eip1559.js';

const config = parseChainConfig({
  chainId: 901,
  londonBlock: 0,
  bedrockBlock: 0,
  terminalTotalDifficulty: 0,
  regolithTime: 0,
  shanghaiTime: 0,
  canyonTime: 0,
  cancunTime: 0,
  ecotoneTime: 0,
  holoceneTime: 10,
  jovianTime: 20,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
});

function header(number: bigint, timestamp: bigint, over: Partial<Header> = {}): Header {
  return {
    parentHash: new Uint8Array(32),
    uncleHash: EMPTY_UNCLE_HASH,
    coinbase: new Uint8Array(20),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp,
    extraData: new Uint8Array(0),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000_000n,
    withdrawalsRoot: new Uint8Array(32),
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    parentBeaconBlockRoot: new Uint8Array(32),
    ...over,
  };
}

describe('OP header validation', () => {
  const parent = header(1n, 2n, { gasUsed: 15_000_000n });
  // Canyon denominator 250, elasticity 6: target 5M, used 15M → +1e9·10M/5M/250 = +8e6.
  const next = 1_000_000_000n + 8_000_000n;

  it('uses the OP base fee (Canyon denominator) and lets the gas limit change freely', () => {
    validateHeader(config, header(2n, 4n, { baseFeePerGas: next, gasLimit: 60_000_000n }), parent);
    expect(() => validateHeader(config, header(2n, 4n, { baseFeePerGas: next + 1n }), parent)).toThrow(/baseFee/);
  });

  it('requires empty extraData before Holocene and the Holocene/Jovian encodings after', () => {
    expect(() =>
      validateHeader(config, header(2n, 4n, { baseFeePerGas: next, extraData: Uint8Array.of(1) }), parent),
    ).toThrow(/extraData/);
    const holoParent = header(5n, 10n, { extraData: encodeHoloceneExtraData({ denominator: 250n, elasticity: 6n }) });
    const ok = header(6n, 12n, {
      baseFeePerGas: 1_000_000_000n - 1_000_000_000n / 250n,
      extraData: encodeHoloceneExtraData({ denominator: 250n, elasticity: 6n }),
    });
    validateHeader(config, ok, holoParent);
    expect(() => validateHeader(config, { ...ok, extraData: new Uint8Array(0) }, holoParent)).toThrow(/extraData/);
  });

  it('from Jovian: clamps to the minimum base fee and bounds the DA footprint by the gas limit', () => {
    const extra = encodeJovianExtraData({ denominator: 250n, elasticity: 6n }, 2_000_000_000n);
    const jParent = header(10n, 20n, { extraData: extra });
    const child = header(11n, 22n, { extraData: extra, baseFeePerGas: 2_000_000_000n });
    validateHeader(config, child, jParent);
    expect(() => validateHeader(config, { ...child, baseFeePerGas: 999_999_999n }, jParent)).toThrow(/baseFee/);
    expect(() => validateHeader(config, { ...child, blobGasUsed: 30_000_001n }, jParent)).toThrow(/DA footprint/);
  });

  it('rejects a non-zero difficulty', () => {
    expect(() => validateHeader(config, header(2n, 4n, { baseFeePerGas: next, difficulty: 1n }), parent)).toThrow(
      /difficulty/,
    );
  });
});
