import { createLegacyTx } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { formatFeeScalar, opReceiptFields } from '../../../../../../src/main/exec/evm/op/receiptFields.js';
import { parseChainConfig } from '../../../../../../src/main/primitives/chainConfig.js';
import {
  batcherHashFromAddress,
  encodeL1InfoCalldata,
  type L1InfoFormat,
  l1InfoDepositTx,
} from '../../../../../../src/main/primitives/op/l1Info.js';
import { decodeTransaction } from '../../../../../../src/main/primitives/tx/decode.js';
import { encodeDepositTx } from '../../../../../../src/main/primitives/tx/deposit/deposit.js';

const config = parseChainConfig({
  chainId: 10,
  londonBlock: 0,
  bedrockBlock: 0,
  regolithTime: 0,
  ecotoneTime: 100,
  fjordTime: 200,
  isthmusTime: 300,
  optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 },
});
const info = {
  number: 1n,
  time: 2n,
  baseFee: 7_000_000_000n,
  blockHash: new Uint8Array(32),
  sequenceNumber: 0n,
  batcherHash: new Uint8Array(32),
  l1FeeOverhead: 188n,
  l1FeeScalar: 684_000n,
  blobBaseFee: 3n,
  baseFeeScalar: 1368n,
  blobBaseFeeScalar: 810_949n,
  operatorFeeScalar: 5n,
  operatorFeeConstant: 0n,
};
// A user transaction: only its bytes matter for the L1 fee.
const user = decodeTransaction(
  createLegacyTx({ nonce: 1n, gasPrice: 10n, gasLimit: 21_000n, to: new Uint8Array(20), value: 5n })
    .sign(new Uint8Array(32).fill(7))
    .serialize(),
);

describe('OP receipt fields', () => {
  it('formats the pre-Ecotone fee scalar as Go big.Float does', () => {
    expect(formatFeeScalar(684_000n)).toBe('0.684');
    expect(formatFeeScalar(1_000_000n)).toBe('1');
    expect(formatFeeScalar(0n)).toBe('0');
  });

  it('derives Bedrock-format fields from the L1-info deposit', () => {
    const l1 = decodeTransaction(encodeDepositTx(l1InfoDepositTx(info, 'bedrock', true)));
    const fields = opReceiptFields(config, 50n, [l1, user]);
    expect(fields[0]).toBeUndefined();
    const f = fields[1] as Record<string, string>;
    expect(f.l1FeeScalar).toBe('0.684');
    expect(f.l1GasPrice).toBe('0x1a13b8600');
    expect(f.l1BlobBaseFee).toBeUndefined();
    const raw = user.raw;
    const zeros = BigInt(raw.filter((b) => b === 0).length);
    const gas = zeros * 4n + (BigInt(raw.length) - zeros) * 16n + 188n;
    expect(BigInt(f.l1GasUsed as string)).toBe(gas);
    expect(BigInt(f.l1Fee as string)).toBe((gas * 7_000_000_000n * 684_000n) / 1_000_000n);
  });

  it('adds Ecotone scalars and Isthmus operator fee parameters', () => {
    const l1 = decodeTransaction(encodeDepositTx(l1InfoDepositTx(info, 'isthmus', true)));
    const f = opReceiptFields(config, 350n, [l1, user])[1] as Record<string, string>;
    expect(f).toMatchObject({
      l1BaseFeeScalar: '0x558',
      l1BlobBaseFeeScalar: '0xc5fc5',
      l1BlobBaseFee: '0x3',
      operatorFeeScalar: '0x5',
      operatorFeeConstant: '0x0',
    });
    expect(f.l1FeeScalar).toBeUndefined();
    expect(encodeL1InfoCalldata(info, 'isthmus').length).toBe(176);
  });

  it('prints l1FeeScalar like big.Float.String()', () => {
    expect(formatFeeScalar(7_000_000n)).toBe('7');
    expect(formatFeeScalar(1n)).toBe('1e-06');
    expect(formatFeeScalar(12_500_000n)).toBe('12.5');
    expect(formatFeeScalar(1_000_000_000_000n)).toBe('1000000');
    expect(formatFeeScalar(1_234_567_890_000_000n)).toBe('1234567890');
    expect(formatFeeScalar(12_345_678_901_000_000n)).toBe('1.23456789e+10');
  });
});

// op-geth rollup_cost_test.go TestExtract*GasParams: its L1 attributes (1234 in the ignored fields) priced for
// op-geth's emptyTx, one block per fork.
describe('OP receipt fields: op-geth vectors', () => {
  const word = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
  const gethInfo = {
    number: 1234n,
    time: 1234n,
    baseFee: 1000n * 1_000_000n,
    blockHash: word(1234n),
    sequenceNumber: 1234n,
    batcherHash: batcherHashFromAddress(new Uint8Array(20)),
    l1FeeOverhead: 50n,
    l1FeeScalar: 7_000_000n,
    blobBaseFee: 10_000_000n,
    baseFeeScalar: 2n,
    blobBaseFeeScalar: 3n,
    operatorFeeScalar: 1439103868n,
    operatorFeeConstant: 1256417826609331460n,
    daFootprintGasScalar: 400n,
  };
  const forks = parseChainConfig({
    chainId: 10,
    londonBlock: 0,
    bedrockBlock: 0,
    regolithTime: 10,
    ecotoneTime: 100,
    fjordTime: 200,
    isthmusTime: 300,
    jovianTime: 400,
    optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 },
  });
  // op-geth's emptyTx (transaction_test.go): an unsigned legacy transaction to 0x095e7b…, every other field zero.
  const emptyTx = decodeTransaction(
    Uint8Array.from(Buffer.from('dd80808094095e7baea6a6c7c4c2dfeb977efac326af552d878080808080', 'hex')),
  );
  const fieldsAt = (format: L1InfoFormat, time: bigint) =>
    opReceiptFields(forks, time, [
      decodeTransaction(encodeDepositTx(l1InfoDepositTx(gethInfo, format, time >= 10n))),
      emptyTx,
    ])[1] as Record<string, string>;

  it('Bedrock calldata: bedrock / regolith fees, l1FeeScalar as a decimal', () => {
    expect(fieldsAt('bedrock', 5n)).toEqual({
      l1GasPrice: '0x3b9aca00',
      l1GasUsed: '0x652',
      l1Fee: `0x${(11326000000000n).toString(16)}`,
      l1FeeScalar: '7',
    });
    // the first Ecotone block still carries Bedrock calldata and is priced like Regolith
    expect(fieldsAt('bedrock', 100n)).toMatchObject({
      l1Fee: `0x${(3710000000000n).toString(16)}`,
      l1GasUsed: '0x212',
    });
  });

  it('Ecotone and Fjord calldata', () => {
    expect(fieldsAt('ecotone', 150n)).toEqual({
      l1GasPrice: '0x3b9aca00',
      l1GasUsed: '0x1e0',
      l1Fee: `0x${(960900n).toString(16)}`,
      l1BlobBaseFee: '0x989680',
      l1BaseFeeScalar: '0x2',
      l1BlobBaseFeeScalar: '0x3',
    });
    expect(fieldsAt('ecotone', 250n)).toMatchObject({ l1Fee: `0x${(3203000n).toString(16)}`, l1GasUsed: '0x640' });
  });

  it('Isthmus and Jovian calldata add the operator fee and DA footprint', () => {
    expect(fieldsAt('isthmus', 350n)).toMatchObject({
      l1Fee: `0x${(3203000n).toString(16)}`,
      operatorFeeScalar: `0x${(1439103868n).toString(16)}`,
      operatorFeeConstant: `0x${(1256417826609331460n).toString(16)}`,
    });
    // the Isthmus activation block still carries Ecotone calldata
    expect(fieldsAt('ecotone', 300n)).not.toHaveProperty('operatorFeeScalar');
    expect(fieldsAt('jovian', 450n)).toMatchObject({
      daFootprintGasScalar: '0x190',
      blobGasUsed: `0x${(100n * 400n).toString(16)}`,
    });
  });
});
