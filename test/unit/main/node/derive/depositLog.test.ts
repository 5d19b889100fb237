import { describe, expect, it } from 'vitest';
import { userDeposits } from '../../../../../src/main/node/derive/depositLog.js';
import { fromHex, toHex } from '../../../../../src/main/node/derive/types.js';
import type { Log, Receipt } from '../../../../../src/main/primitives/receipt/receipt.js';
import { userDepositSourceHash } from '../../../../../src/main/primitives/tx/deposit/sourceHash.js';
import { depositLog, PORTAL } from './fixtures.js';

const receipt = (logs: Log[], status = 1): Receipt => ({
  type: 2,
  status,
  cumulativeGasUsed: 0n,
  logsBloom: new Uint8Array(256),
  logs,
});

describe('user deposits', () => {
  const block = `0x${'77'.repeat(32)}`;
  const a = depositLog({
    from: `0x${'01'.repeat(20)}`,
    to: `0x${'02'.repeat(20)}`,
    mint: 5n,
    value: 3n,
    gas: 100_000n,
    creation: false,
    data: 'cafe',
  });
  const create = depositLog({
    from: `0x${'03'.repeat(20)}`,
    to: `0x${'00'.repeat(20)}`,
    mint: 0n,
    value: 0n,
    gas: 21_000n,
    creation: true,
    data: '60016000',
  });
  const other = { ...a, address: fromHex(`0x${'99'.repeat(20)}`) };

  it('decodes every field and numbers logs across the whole block', () => {
    const deps = userDeposits([receipt([other, a]), receipt([create])], PORTAL, block);
    expect(deps).toHaveLength(2);
    const [d0, d1] = deps as [NonNullable<(typeof deps)[0]>, NonNullable<(typeof deps)[0]>];
    expect(toHex(d0.sourceHash)).toBe(toHex(userDepositSourceHash(fromHex(block), 1n)));
    expect(toHex(d0.from)).toBe(`0x${'01'.repeat(20)}`);
    expect(toHex(d0.to as Uint8Array)).toBe(`0x${'02'.repeat(20)}`);
    expect([d0.mint, d0.value, d0.gasLimit, d0.isSystemTx]).toEqual([5n, 3n, 100_000n, false]);
    expect(toHex(d0.data)).toBe('0xcafe');
    expect(toHex(d1.sourceHash)).toBe(toHex(userDepositSourceHash(fromHex(block), 2n)));
    expect(d1.to).toBeUndefined();
    expect(toHex(d1.data)).toBe('0x60016000');
  });

  it('ignores failed receipts', () => {
    expect(userDeposits([receipt([a], 0)], PORTAL, block)).toHaveLength(0);
  });

  it('rejects a malformed portal log as critical', () => {
    const bad = { ...a, data: a.data.subarray(0, a.data.length - 32) };
    expect(() => userDeposits([receipt([bad])], PORTAL, block)).toThrow(
      expect.objectContaining({ code: 'DEPOSIT_LOG_INVALID', severity: 'critical' }),
    );
  });
});
