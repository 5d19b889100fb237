import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RpcErrorCode } from '../../../../../src/main/protocol/jsonrpc/errors.js';
import { buildBlock, type EngineFixture, engineFixture, hex, pending, transfer, useExecutor } from './fixture.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: number }).code;
  }
  return undefined;
};

describe.each(['inline', 'worker'] as const)(
  'engine_getPayloadBodiesByHashV1 / ByRangeV1 (%s executor)',
  (executor) => {
    beforeAll(() => useExecutor(executor));
    let f: EngineFixture;
    afterEach(async () => f.close());

    it('returns bodies by hash (null for unknown) and by range (up to the head)', async () => {
      f = await engineFixture();
      const tx = await transfer(0);
      f.pool.txs = [pending(tx)];
      const b1 = await buildBlock(f, f.genesisHash, 12n);
      f.pool.txs = [];
      const b2 = await buildBlock(f, b1, 24n);
      const byHash = f.api.getPayloadBodiesByHash([b1, new Uint8Array(32).fill(4), b2]);
      expect(byHash[0]?.transactions.map(hex)).toEqual([hex(tx)]);
      expect(byHash[0]?.withdrawals).toEqual([]);
      expect(byHash[1]).toBeNull();
      expect(byHash[2]?.transactions).toEqual([]);
      const range = f.api.getPayloadBodiesByRange(1n, 10n);
      expect(range.length).toBe(2);
      expect(range[0]?.transactions.map(hex)).toEqual([hex(tx)]);
      expect(f.api.getPayloadBodiesByRange(5n, 2n)).toEqual([]);
    });

    it('-38004 above 1024 items, -32602 for start or count below 1', async () => {
      f = await engineFixture();
      expect(code(() => f.api.getPayloadBodiesByHash(new Array(1025).fill(new Uint8Array(32))))).toBe(
        RpcErrorCode.tooLargeRequest,
      );
      expect(code(() => f.api.getPayloadBodiesByRange(1n, 1025n))).toBe(RpcErrorCode.tooLargeRequest);
      expect(code(() => f.api.getPayloadBodiesByRange(0n, 1n))).toBe(RpcErrorCode.invalidParams);
      expect(code(() => f.api.getPayloadBodiesByRange(1n, 0n))).toBe(RpcErrorCode.invalidParams);
    });
  },
);
