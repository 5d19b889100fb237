import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RpcErrorCode } from '../../../../../src/main/protocol/jsonrpc/errors.js';
import {
  attributes,
  buildBlock,
  type EngineFixture,
  engineFixture,
  hex,
  pending,
  transfer,
  useExecutor,
  ZERO32,
} from './fixture.js';

const code = async (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: { code?: number }) => e.code,
  );

describe.each(['inline', 'worker'] as const)('engine_forkchoiceUpdated (%s executor)', (executor) => {
  beforeAll(() => useExecutor(executor));
  let f: EngineFixture;
  afterEach(async () => f.close());

  it('builds blocks on the head with pool transactions and moves head, safe and finalized', async () => {
    f = await engineFixture();
    f.pool.txs = [pending(await transfer(0))];
    const b1 = await buildBlock(f, f.genesisHash, 12n);
    expect(hex(f.store.head().hash)).toBe(hex(b1));
    expect(f.store.blockByHash(b1)?.transactions.length).toBe(1);
    f.pool.txs = [pending(await transfer(1))];
    const b2 = await buildBlock(f, b1, 24n);
    const r = await f.api.forkchoiceUpdated(3, { headBlockHash: b2, safeBlockHash: b1, finalizedBlockHash: b1 });
    expect(r.payloadStatus).toEqual({ status: 'VALID', latestValidHash: b2, validationError: null });
    expect(hex(f.store.safeHash() as Uint8Array)).toBe(hex(b1));
    expect(hex(f.store.finalizedHash() as Uint8Array)).toBe(hex(b1));
    expect(f.store.head().number).toBe(2n);
  });

  it('reorgs to a sibling branch: flat state, canonical index and transaction index follow', async () => {
    f = await engineFixture();
    const to = `0x${'22'.repeat(20)}`;
    f.pool.txs = [pending(await transfer(0, to, 5n))];
    const a1 = await buildBlock(f, f.genesisHash, 12n);
    f.pool.txs = [pending(await transfer(1, to, 7n))];
    const a2 = await buildBlock(f, a1, 24n);
    const addr = Uint8Array.from(Buffer.from(to.slice(2), 'hex'));
    expect(f.store.stateReader().getAccount(addr)?.balance).toBe(12n);
    // Sibling of a1 with a different transfer, then a child: a longer branch built on the genesis.
    f.pool.txs = [pending(await transfer(0, to, 100n))];
    const b1 = await buildBlock(f, f.genesisHash, 13n, {}, false);
    expect(hex(f.store.head().hash)).toBe(hex(a2));
    f.pool.txs = [];
    const b2 = await buildBlock(f, b1, 25n, {}, false);
    const b3 = await buildBlock(f, b2, 37n);
    expect(hex(f.store.head().hash)).toBe(hex(b3));
    expect(hex(f.store.canonicalHash(1n) as Uint8Array)).toBe(hex(b1));
    expect(f.store.stateReader().getAccount(addr)?.balance).toBe(100n);
    const a2tx = f.store.blockByHash(a2)?.transactions[0] as Uint8Array;
    const { keccak256 } = await import('../../../../../src/main/native/keccak.js');
    expect(f.store.txLookup(keccak256(a2tx))).toBeUndefined();
    // And back: the old branch is still stored with its state.
    const back = await f.api.forkchoiceUpdated(3, {
      headBlockHash: a2,
      safeBlockHash: ZERO32,
      finalizedBlockHash: ZERO32,
    });
    expect(back.payloadStatus.status).toBe('VALID');
    expect(f.store.head().number).toBe(2n);
    expect(f.store.stateReader().getAccount(addr)?.balance).toBe(12n);
    expect(f.store.txLookup(keccak256(a2tx))?.blockNumber).toBe(2);
  });

  it('answers SYNCING for an unknown head and INVALID for the zero hash', async () => {
    f = await engineFixture();
    const r = await f.api.forkchoiceUpdated(3, {
      headBlockHash: new Uint8Array(32).fill(1),
      safeBlockHash: ZERO32,
      finalizedBlockHash: ZERO32,
    });
    expect(r).toEqual({
      payloadStatus: { status: 'SYNCING', latestValidHash: null, validationError: null },
      payloadId: null,
    });
    const z = await f.api.forkchoiceUpdated(3, {
      headBlockHash: ZERO32,
      safeBlockHash: ZERO32,
      finalizedBlockHash: ZERO32,
    });
    expect(z.payloadStatus.status).toBe('INVALID');
  });

  it('rejects safe/finalized blocks that are unknown or not canonical with -38002', async () => {
    f = await engineFixture();
    const unknown = new Uint8Array(32).fill(5);
    const head = f.genesisHash;
    expect(
      await code(
        f.api.forkchoiceUpdated(3, { headBlockHash: head, safeBlockHash: unknown, finalizedBlockHash: ZERO32 }),
      ),
    ).toBe(RpcErrorCode.invalidForkchoiceState);
    const side = await buildBlock(f, f.genesisHash, 12n, {}, false);
    expect(
      await code(f.api.forkchoiceUpdated(3, { headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: side })),
    ).toBe(RpcErrorCode.invalidForkchoiceState);
  });

  it('checks attributes: -38003 for a stale timestamp, -32602 for missing fields, -38005 for the wrong version', async () => {
    f = await engineFixture();
    const state = { headBlockHash: f.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    expect(await code(f.api.forkchoiceUpdated(3, state, attributes(0n)))).toBe(RpcErrorCode.invalidPayloadAttributes);
    expect(await code(f.api.forkchoiceUpdated(3, state, attributes(5n, { parentBeaconBlockRoot: undefined })))).toBe(
      RpcErrorCode.invalidParams,
    );
    expect(await code(f.api.forkchoiceUpdated(3, state, attributes(5n, { withdrawals: undefined })))).toBe(
      RpcErrorCode.invalidParams,
    );
    expect(await code(f.api.forkchoiceUpdated(2, state, attributes(5n, { parentBeaconBlockRoot: undefined })))).toBe(
      RpcErrorCode.unsupportedFork,
    );
    expect(await code(f.api.forkchoiceUpdated(2, state, attributes(5n)))).toBe(RpcErrorCode.invalidPayloadAttributes);
    expect(await code(f.api.forkchoiceUpdated(1, state, attributes(5n)))).toBe(RpcErrorCode.invalidParams);
  });

  it('forced transactions come first and in order; noTxPool leaves the pool out; invalid ones give -38003', async () => {
    f = await engineFixture();
    const forced = await transfer(0);
    f.pool.txs = [pending(await transfer(1))];
    const state = { headBlockHash: f.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    const r = await f.api.forkchoiceUpdated(3, state, attributes(12n, { transactions: [forced], noTxPool: true }));
    const env = f.api.getPayload(3, r.payloadId as Uint8Array);
    expect(env.executionPayload.transactions.map(hex)).toEqual([hex(forced)]);
    const r2 = await f.api.forkchoiceUpdated(3, state, attributes(12n, { transactions: [forced] }));
    expect(f.api.getPayload(3, r2.payloadId as Uint8Array).executionPayload.transactions.length).toBe(2);
    const badNonce = await transfer(5);
    expect(await code(f.api.forkchoiceUpdated(3, state, attributes(12n, { transactions: [badNonce] })))).toBe(
      RpcErrorCode.invalidPayloadAttributes,
    );
  });
});
