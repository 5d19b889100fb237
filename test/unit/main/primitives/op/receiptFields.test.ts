// Receipt L1 fields from L1-info calldata: op-geth rollup_cost_test.go TestExtract*GasParams (calldata built as
// its getBedrockL1Attributes/getEcotoneL1Attributes/getIsthmusL1Attributes do, 1234 in the ignored fields).
import { describe, expect, it } from 'vitest';
import { rollupCostData } from '../../../../../src/main/primitives/op/l1Cost.js';
import { batcherHashFromAddress, encodeL1InfoCalldata } from '../../../../../src/main/primitives/op/l1Info.js';
import {
  depositReceiptJsonFields,
  formatFeeScalar,
  l1GasParamsFromL1InfoCalldata,
  opReceiptJsonFields,
} from '../../../../../src/main/primitives/op/receiptFields.js';
import { EMPTY_TX } from './vectors.js';

const word = (n: bigint) => Uint8Array.from(Buffer.from(n.toString(16).padStart(64, '0'), 'hex'));
const info = {
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
const cd = rollupCostData(EMPTY_TX);

describe('receipt L1 fields', () => {
  it('Bedrock calldata: bedrock / regolith fees, l1FeeScalar as a decimal', () => {
    const data = encodeL1InfoCalldata(info, 'bedrock');
    expect(opReceiptJsonFields(cd, l1GasParamsFromL1InfoCalldata(data, 'bedrock'), 'bedrock')).toEqual({
      l1GasPrice: '0x3b9aca00',
      l1GasUsed: '0x652',
      l1Fee: `0x${(11326000000000n).toString(16)}`,
      l1FeeScalar: '7',
    });
    // the first Ecotone block still carries Bedrock calldata and is priced like Regolith
    const first = opReceiptJsonFields(cd, l1GasParamsFromL1InfoCalldata(data, 'ecotone'), 'ecotone');
    expect(first).toMatchObject({ l1Fee: `0x${(3710000000000n).toString(16)}`, l1GasUsed: '0x212' });
  });

  it('Ecotone and Fjord calldata', () => {
    const data = encodeL1InfoCalldata(info, 'ecotone');
    expect(opReceiptJsonFields(cd, l1GasParamsFromL1InfoCalldata(data, 'ecotone'), 'ecotone')).toEqual({
      l1GasPrice: '0x3b9aca00',
      l1GasUsed: '0x1e0',
      l1Fee: `0x${(960900n).toString(16)}`,
      l1BlobBaseFee: '0x989680',
      l1BaseFeeScalar: '0x2',
      l1BlobBaseFeeScalar: '0x3',
    });
    const fjord = opReceiptJsonFields(cd, l1GasParamsFromL1InfoCalldata(data, 'fjord'), 'fjord');
    expect(fjord).toMatchObject({ l1Fee: `0x${(3203000n).toString(16)}`, l1GasUsed: '0x640' });
    expect(() => l1GasParamsFromL1InfoCalldata(Uint8Array.of(...data, 0), 'ecotone')).toThrow(/164/);
  });

  it('Isthmus and Jovian calldata add the operator fee and DA footprint', () => {
    const isthmus = l1GasParamsFromL1InfoCalldata(encodeL1InfoCalldata(info, 'isthmus'), 'isthmus');
    expect(isthmus).toMatchObject({ operatorFeeScalar: 1439103868n, operatorFeeConstant: 1256417826609331460n });
    expect(opReceiptJsonFields(cd, isthmus, 'isthmus')).toMatchObject({
      l1Fee: `0x${(3203000n).toString(16)}`,
      operatorFeeScalar: `0x${(1439103868n).toString(16)}`,
    });
    // the Isthmus activation block still carries Ecotone calldata
    const ecotoneData = encodeL1InfoCalldata(info, 'ecotone');
    expect(
      opReceiptJsonFields(cd, l1GasParamsFromL1InfoCalldata(ecotoneData, 'isthmus'), 'isthmus'),
    ).not.toHaveProperty('operatorFeeScalar');
    const jovian = l1GasParamsFromL1InfoCalldata(encodeL1InfoCalldata(info, 'jovian'), 'jovian');
    expect(opReceiptJsonFields(cd, jovian, 'jovian')).toMatchObject({
      daFootprintGasScalar: '0x190',
      blobGasUsed: `0x${(100n * 400n).toString(16)}`,
    });
  });

  it('prints l1FeeScalar like big.Float.String()', () => {
    expect(formatFeeScalar(684_000n)).toBe('0.684');
    expect(formatFeeScalar(7_000_000n)).toBe('7');
    expect(formatFeeScalar(1n)).toBe('1e-06');
    expect(formatFeeScalar(12_500_000n)).toBe('12.5');
    expect(formatFeeScalar(1_000_000_000_000n)).toBe('1000000');
    expect(formatFeeScalar(1_234_567_890_000_000n)).toBe('1234567890');
    expect(formatFeeScalar(12_345_678_901_000_000n)).toBe('1.23456789e+10');
    expect(formatFeeScalar(0n)).toBe('0');
  });

  it('deposit receipts show their nonce and version', () => {
    expect(depositReceiptJsonFields({})).toEqual({});
    expect(depositReceiptJsonFields({ depositNonce: 3n, depositReceiptVersion: 1n })).toEqual({
      depositNonce: '0x3',
      depositReceiptVersion: '0x1',
    });
  });
});
