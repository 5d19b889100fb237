import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ImportTimings } from '../../../../../src/main/exec/chain/importer.js';
import type { ExecutionPayload } from '../../../../../src/main/protocol/engine/types.js';
import { RpcErrorCode } from '../../../../../src/main/protocol/jsonrpc/errors.js';
import {
  attributes,
  buildBlock,
  type EngineFixture,
  engineFixture,
  hex,
  PRAGUE_TIME,
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
const BEACON = new Uint8Array(32).fill(9);

/** A built (not yet inserted) payload on the genesis. */
async function built(f: EngineFixture, timestamp = 12n): Promise<ExecutionPayload> {
  f.pool.txs = [pending(await transfer(0))];
  const r = await f.api.forkchoiceUpdated(
    3,
    { headBlockHash: f.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 },
    attributes(timestamp),
  );
  return f.api.getPayload(3, r.payloadId as Uint8Array).executionPayload;
}

describe.each(['inline', 'worker'] as const)('engine_newPayload (%s executor)', (executor) => {
  beforeAll(() => useExecutor(executor));
  let f: EngineFixture;
  afterEach(async () => f.close());

  it('VALID for a good payload, without moving the head; VALID again when known', async () => {
    f = await engineFixture();
    const p = await built(f);
    // A fresh node re-executes: a second engine over another database is overkill; drop the built cache instead.
    const s = await f.api.newPayload(3, p, [], BEACON);
    expect(s).toEqual({ status: 'VALID', latestValidHash: p.blockHash, validationError: null });
    expect(hex(f.store.head().hash)).toBe(hex(f.genesisHash));
    expect(await f.api.newPayload(3, p, [], BEACON)).toEqual(s);
  });

  it('a payload that is not ours waits for its forkchoice update; a child sent first stores it beside the chain', async () => {
    f = await engineFixture();
    // Three blocks built and made the head on `f`, one transfer of 1000 wei each, then sent to `g`.
    const payloads: ExecutionPayload[] = [];
    let parent = f.genesisHash;
    for (let i = 0; i < 3; i++) {
      f.pool.txs = [pending(await transfer(i))];
      const state = { headBlockHash: parent, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
      const r = await f.api.forkchoiceUpdated(3, state, attributes(12n * BigInt(i + 1)));
      const p = f.api.getPayload(3, r.payloadId as Uint8Array).executionPayload;
      expect((await f.api.newPayload(3, p, [], BEACON)).status).toBe('VALID');
      await f.api.forkchoiceUpdated(3, { ...state, headBlockHash: p.blockHash });
      payloads.push(p);
      parent = p.blockHash;
    }
    const [p1, p2, p3] = payloads as [ExecutionPayload, ExecutionPayload, ExecutionPayload];
    const fcu = (head: Uint8Array) =>
      g.api.forkchoiceUpdated(3, { headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 });
    const to = Uint8Array.from(Buffer.from('11'.repeat(20), 'hex'));
    const g = await engineFixture();
    try {
      const valid = (p: ExecutionPayload) => ({ status: 'VALID', latestValidHash: p.blockHash, validationError: null });
      expect(await g.api.newPayload(3, p1, [], BEACON)).toEqual(valid(p1));
      // Held by the executor: the block is readable, the head has not moved; VALID again when sent again.
      expect(g.store.blockByHash(p1.blockHash)?.transactions).toHaveLength(1);
      expect(g.store.head().number).toBe(0n);
      expect(await g.api.newPayload(3, p1, [], BEACON)).toEqual(valid(p1));
      expect((await fcu(p1.blockHash)).payloadStatus).toEqual(valid(p1));
      expect(hex(g.store.head().hash)).toBe(hex(p1.blockHash));
      expect(g.store.stateReader().getAccount(to)?.balance).toBe(1000n);
      // p2 held, then its child before any forkchoice update: p2 is stored beside the chain and p3 runs on it.
      expect(await g.api.newPayload(3, p2, [], BEACON)).toEqual(valid(p2));
      expect(await g.api.newPayload(3, p3, [], BEACON)).toEqual(valid(p3));
      expect(g.store.head().number).toBe(1n);
      expect((await fcu(p3.blockHash)).payloadStatus).toEqual(valid(p3));
      expect(hex(g.store.head().hash)).toBe(hex(p3.blockHash));
      expect(g.store.stateReader().getAccount(to)?.balance).toBe(3000n);
    } finally {
      await g.close();
    }
  });

  it('after a crash that lost a held payload (its block stored, not its state) the payload executes again', async () => {
    f = await engineFixture();
    const p = await built(f);
    expect((await f.api.newPayload(3, p, [], BEACON)).status).toBe('VALID');
    const block = f.store.blockByHash(p.blockHash);
    const receipts = f.store.receipts(p.blockNumber, p.blockHash);
    if (block === undefined || receipts === undefined) throw new Error('the built block is stored');
    const g = await engineFixture();
    try {
      // What a kill between newPayload and its forkchoice update leaves: the block's data, its parent the head.
      await g.store.commitBlockData(block, p.blockHash, receipts);
      expect(g.store.head().number).toBe(0n);
      const state = { headBlockHash: p.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
      expect((await g.api.forkchoiceUpdated(3, state)).payloadStatus.status).toBe('SYNCING');
      expect(g.store.head().number).toBe(0n);
      // The consensus client sends the payload again: executed, then made the head.
      expect(await g.api.newPayload(3, p, [], BEACON)).toEqual({
        status: 'VALID',
        latestValidHash: p.blockHash,
        validationError: null,
      });
      expect((await g.api.forkchoiceUpdated(3, state)).payloadStatus.status).toBe('VALID');
      expect(hex(g.store.head().hash)).toBe(hex(p.blockHash));
      expect(g.store.stateReader().getAccount(Uint8Array.from(Buffer.from('11'.repeat(20), 'hex')))?.balance).toBe(
        1000n,
      );
    } finally {
      await g.close();
    }
  });

  it('executes a payload that is not ours (re-execution path) and reports a wrong state root as INVALID', async () => {
    f = await engineFixture();
    const p = await built(f);
    const timings: ImportTimings[] = [];
    const g = await engineFixture({ imported: (t) => timings.push(t) });
    try {
      expect((await g.api.newPayload(3, p, [], BEACON)).status).toBe('VALID');
      // The chain/* stage times come back from whichever thread executed the block.
      expect(timings).toHaveLength(1);
      expect(timings[0]?.execution).toBeGreaterThan(0);
      expect(timings[0]?.persistence).toBeGreaterThan(0);
      const bad = { ...p, stateRoot: new Uint8Array(32).fill(1) };
      const { encodeHeader, headerHash } = await import('../../../../../src/main/primitives/block/header.js');
      void encodeHeader;
      // Re-hash so only the state root is wrong.
      const blk = (
        g.api as unknown as {
          blockFromPayload: (p: ExecutionPayload, b: Uint8Array, r: undefined) => { header: never };
        }
      ).blockFromPayload(bad, BEACON, undefined);
      bad.blockHash = headerHash(blk.header);
      bad.blockNumber = p.blockNumber;
      const s = await g.api.newPayload(3, { ...bad, timestamp: p.timestamp }, [], BEACON);
      expect(s.status).toBe('INVALID');
      expect(hex(s.latestValidHash as Uint8Array)).toBe(hex(g.genesisHash));
      expect(s.validationError).toMatch(/state root mismatch/);
    } finally {
      await g.close();
    }
  });

  it('INVALID with a null latestValidHash for a wrong block hash or wrong versioned hashes', async () => {
    f = await engineFixture();
    const p = await built(f);
    const s = await f.api.newPayload(3, { ...p, blockHash: new Uint8Array(32).fill(3) }, [], BEACON);
    expect(s.status).toBe('INVALID');
    expect(s.latestValidHash).toBeNull();
    expect(s.validationError).toMatch(/blockhash mismatch/);
    const v = await f.api.newPayload(3, p, [new Uint8Array(32).fill(1)], BEACON);
    expect(v).toMatchObject({ status: 'INVALID', latestValidHash: null });
  });

  it('SYNCING for an unknown parent (nothing stored)', async () => {
    f = await engineFixture();
    const g = await engineFixture();
    try {
      const h1 = await buildBlock(g, g.genesisHash, 12n);
      g.pool.txs = [];
      const h2 = await buildBlock(g, h1, 24n);
      const p2 = (await import('../../../../../src/main/exec/engine/api.js')).payloadFromBlock(
        g.store.config(),
        g.store.blockByHash(h2) as never,
        h2,
      );
      const s = await f.api.newPayload(3, p2, [], BEACON);
      expect(s).toEqual({ status: 'SYNCING', latestValidHash: null, validationError: null });
      expect(f.store.headerByHash(h2)).toBeUndefined();
    } finally {
      await g.close();
    }
  });

  it('version rules: -38005 for the wrong fork, -32602 for missing V3 fields', async () => {
    f = await engineFixture();
    const p = await built(f);
    expect(await code(f.api.newPayload(2, { ...p, blobGasUsed: undefined, excessBlobGas: undefined }))).toBe(
      RpcErrorCode.unsupportedFork,
    );
    expect(await code(f.api.newPayload(4, p, [], BEACON, []))).toBe(RpcErrorCode.unsupportedFork);
    expect(await code(f.api.newPayload(3, { ...p, timestamp: PRAGUE_TIME }, [], BEACON))).toBe(
      RpcErrorCode.unsupportedFork,
    );
    expect(await code(f.api.newPayload(3, p, null, BEACON))).toBe(RpcErrorCode.invalidParams);
    expect(await code(f.api.newPayload(3, p, [], null))).toBe(RpcErrorCode.invalidParams);
    expect(await code(f.api.newPayload(3, { ...p, blobGasUsed: undefined }, [], BEACON))).toBe(
      RpcErrorCode.invalidParams,
    );
    expect(await code(f.api.newPayload(4, { ...p, timestamp: PRAGUE_TIME }, [], BEACON, null))).toBe(
      RpcErrorCode.invalidParams,
    );
    expect(
      await code(
        f.api.newPayload(4, { ...p, timestamp: PRAGUE_TIME }, [], BEACON, [Uint8Array.of(1, 1), Uint8Array.of(0, 1)]),
      ),
    ).toBe(RpcErrorCode.invalidParams);
  });
});
