import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RpcErrorCode } from '../../../../../src/main/protocol/jsonrpc/errors.js';
import { attributes, type EngineFixture, engineFixture, pending, transfer, useExecutor, ZERO32 } from './fixture.js';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: number }).code;
  }
  return undefined;
};

describe.each(['inline', 'worker'] as const)('engine_getPayload (%s executor)', (executor) => {
  beforeAll(() => useExecutor(executor));
  let f: EngineFixture;
  afterEach(async () => f.close());

  it('returns the V3 envelope with blockValue (the tips) and an empty blobs bundle', async () => {
    f = await engineFixture();
    f.pool.txs = [pending(await transfer(0))];
    const r = await f.api.forkchoiceUpdated(
      3,
      { headBlockHash: f.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      attributes(12n),
    );
    const env = f.api.getPayload(3, r.payloadId as Uint8Array);
    expect(env.executionPayload.blockNumber).toBe(1n);
    expect(env.executionPayload.gasUsed).toBe(21000n);
    // maxPriorityFee 2 gwei is below maxFee - baseFee: the tip is 2 gwei per gas.
    expect(env.blockValue).toBe(21000n * 2_000_000_000n);
    expect(env.blobsBundle).toEqual({ commitments: [], proofs: [], blobs: [] });
    expect(env.shouldOverrideBuilder).toBe(false);
    expect(env.executionRequests).toBeUndefined();
    expect(r.payloadId?.[0]).toBe(3);
  });

  it('-38001 for an unknown id, -38005 for a version that does not match the payload fork', async () => {
    f = await engineFixture();
    expect(code(() => f.api.getPayload(3, new Uint8Array(8)))).toBe(RpcErrorCode.unknownPayload);
    const r = await f.api.forkchoiceUpdated(
      3,
      { headBlockHash: f.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
      attributes(12n),
    );
    const id = r.payloadId as Uint8Array;
    expect(code(() => f.api.getPayload(2, id))).toBe(RpcErrorCode.unsupportedFork);
    expect(code(() => f.api.getPayload(4, id))).toBe(RpcErrorCode.unsupportedFork);
  });
});
