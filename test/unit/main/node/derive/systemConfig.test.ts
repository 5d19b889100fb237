import { describe, expect, it } from 'vitest';
import {
  eip1559ParamsFor,
  systemConfigFromGenesis,
  updateSystemConfigWithReceipts,
} from '../../../../../src/main/node/derive/systemConfig.js';
import { fromHex, toHex } from '../../../../../src/main/node/derive/types.js';
import type { Log, Receipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { configUpdateLog, testRollupConfig, word } from './fixtures.js';

const receipt = (logs: Log[], status = 1): Receipt => ({
  type: 2,
  status,
  cumulativeGasUsed: 0n,
  logsBloom: new Uint8Array(256),
  logs,
});

describe('system config updates', () => {
  const bedrock = testRollupConfig();
  const ecotone = testRollupConfig({ ecotone_time: 0 });
  const base = () => systemConfigFromGenesis(bedrock.genesis.systemConfig);

  it('applies batcher, gas limit, EIP-1559, operator fee, min base fee and DA footprint updates', () => {
    const sc = base();
    const opFee = `${'00'.repeat(20)}0000000a00000000000000ff`;
    updateSystemConfigWithReceipts(
      sc,
      [
        receipt([
          configUpdateLog(0, `${'00'.repeat(12)}${'ab'.repeat(20)}`),
          configUpdateLog(2, word(60_000_000)),
          configUpdateLog(3, word(0x1234)), // unsafe block signer: ignored
          configUpdateLog(4, word((250n << 32n) | 6n)),
          configUpdateLog(5, opFee),
          configUpdateLog(6, word(1_000_000_000)),
          configUpdateLog(7, word(800)),
        ]),
      ],
      ecotone,
      5,
    );
    expect(sc.batcherAddr).toBe(`0x${'ab'.repeat(20)}`);
    expect(sc.gasLimit).toBe(60_000_000n);
    expect(toHex(sc.eip1559Params)).toBe('0x000000fa00000006');
    expect(toHex(sc.operatorFeeParams)).toBe(`0x${opFee}`);
    expect(sc.minBaseFee).toBe(1_000_000_000n);
    expect(sc.daFootprintGasScalar).toBe(800);
  });

  it('keeps the overhead before Ecotone and zeroes it after; ignores invalid Ecotone scalars', () => {
    const pre = base();
    updateSystemConfigWithReceipts(pre, [receipt([configUpdateLog(1, word(7) + word(9))])], bedrock, 5);
    expect(BigInt(toHex(pre.overhead))).toBe(7n);
    expect(BigInt(toHex(pre.scalar))).toBe(9n);

    const post = base();
    const v1 = `01${'00'.repeat(23)}0000000500000006`;
    updateSystemConfigWithReceipts(post, [receipt([configUpdateLog(1, word(7) + v1)])], ecotone, 5);
    expect(BigInt(toHex(post.overhead))).toBe(0n);
    expect(toHex(post.scalar)).toBe(`0x${v1}`);

    const bad = `02${'00'.repeat(31)}`;
    updateSystemConfigWithReceipts(post, [receipt([configUpdateLog(1, word(7) + bad)])], ecotone, 5);
    expect(toHex(post.scalar)).toBe(`0x${v1}`);
  });

  it('skips failed receipts and logs of other contracts', () => {
    const sc = base();
    updateSystemConfigWithReceipts(
      sc,
      [
        receipt([configUpdateLog(2, word(1))], 0),
        receipt([configUpdateLog(2, word(2), { address: `0x${'12'.repeat(20)}` })]),
      ],
      bedrock,
      5,
    );
    expect(sc.gasLimit).toBe(30_000_000n);
  });

  it('treats a malformed update from the contract as critical', () => {
    const sc = base();
    for (const log of [
      configUpdateLog(2, word(1), { len: 64 }),
      configUpdateLog(0, `01${'00'.repeat(11)}${'ab'.repeat(20)}`),
      configUpdateLog(9, word(1)),
    ]) {
      expect(() => updateSystemConfigWithReceipts(sc, [receipt([log])], bedrock, 5)).toThrow(
        expect.objectContaining({ code: 'SYSCFG_UPDATE_INVALID', severity: 'critical' }),
      );
    }
  });

  it('gives eip1559Params only from Holocene, zeros in the activation block', () => {
    const cfg = testRollupConfig({ ecotone_time: 0, fjord_time: 0, granite_time: 0, holocene_time: 1010 });
    const sc = base();
    sc.eip1559Params = fromHex('000000fa00000006');
    expect(eip1559ParamsFor(cfg, sc, 1006, 1008)).toBeUndefined();
    expect(toHex(eip1559ParamsFor(cfg, sc, 1008, 1010) as Uint8Array)).toBe('0x0000000000000000');
    expect(toHex(eip1559ParamsFor(cfg, sc, 1010, 1012) as Uint8Array)).toBe('0x000000fa00000006');
  });
});
