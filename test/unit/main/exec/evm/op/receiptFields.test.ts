import { createLegacyTx } from '@ethereumjs/tx';
import { describe, expect, it } from 'vitest';
import { formatFeeScalar, opReceiptFields } from '../../../../../../src/main/exec/evm/op/receiptFields.js';
import { parseChainConfig } from '../../../../../../src/main/primitives/chainConfig.js';
import { encodeL1InfoCalldata, l1InfoDepositTx } from '../../../../../../src/main/primitives/op/l1Info.js';
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
});
