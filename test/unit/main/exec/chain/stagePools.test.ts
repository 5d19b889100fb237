// The node's block-import stages, over both placements: newPayload with senders on the recovery pool and state
// roots on the trie hasher's thread must answer exactly as with both on the calling thread — a wrong state root
// rejects its block, nothing of it is stored, its descendants are refused, and the chain goes on from the good one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImportTimings } from '../../../../../src/main/exec/chain/importer.js';
import { openStagePools } from '../../../../../src/main/exec/chain/stagePools.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import type { EngineApi } from '../../../../../src/main/exec/engine/api.js';
import { InlineTrieHasher } from '../../../../../src/main/exec/hasher/inline.js';
import { LazyTrieHasher } from '../../../../../src/main/exec/hasher/lazy.js';
import { InlineSenderRecovery } from '../../../../../src/main/exec/senders/inline.js';
import { PooledSenderRecovery } from '../../../../../src/main/exec/senders/pooled.js';
import { headerHash } from '../../../../../src/main/primitives/block/header.js';
import { type RlpDecoded, rlpDecode, rlpEncode } from '../../../../../src/main/primitives/rlp.js';
import type { ExecutionPayload } from '../../../../../src/main/protocol/engine/types.js';
import { attributes, type EngineFixture, engineFixture, hex, pending, transfer, ZERO32 } from '../engine/fixture.js';

const BEACON = new Uint8Array(32).fill(9);

/** The payload with its block hash recomputed, so only the changed fields are wrong. */
function rehash(api: EngineApi, p: ExecutionPayload): ExecutionPayload {
  const block = (
    api as unknown as {
      blockFromPayload: (p: ExecutionPayload, b: Uint8Array, r: undefined) => { header: never };
    }
  ).blockFromPayload(p, BEACON, undefined);
  return { ...p, blockHash: headerHash(block.header) };
}

/** secp256k1's group order: an s above half of it is refused (EIP-2), so the sender cannot be recovered. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The typed transaction with its s replaced by n − 1. */
function highS(raw: Uint8Array): Uint8Array {
  const fields = rlpDecode(raw.subarray(1)) as RlpDecoded[];
  fields[fields.length - 1] = Uint8Array.from(Buffer.from((SECP256K1_N - 1n).toString(16), 'hex'));
  return Uint8Array.of(raw[0] as number, ...rlpEncode(fields as never));
}

/** Builds `count` blocks of transfers on the source engine (each made head); returns their payloads. */
async function chainOf(src: EngineFixture, count: number, txs = 6): Promise<ExecutionPayload[]> {
  const out: ExecutionPayload[] = [];
  let parent = src.genesisHash;
  let nonce = 0;
  for (let i = 0; i < count; i++) {
    src.pool.txs = [];
    for (let k = 0; k < txs; k++)
      src.pool.txs.push(
        pending(await transfer(nonce++, `0x${'22'.repeat(19)}${(16 * k).toString(16).padStart(2, '0')}`)),
      );
    const state = { headBlockHash: parent, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
    const fcu = await src.api.forkchoiceUpdated(3, state, attributes(12n * BigInt(i + 1)));
    const p = src.api.getPayload(3, fcu.payloadId as Uint8Array).executionPayload;
    expect((await src.api.newPayload(3, p, [], BEACON)).status).toBe('VALID');
    await src.api.forkchoiceUpdated(3, { ...state, headBlockHash: p.blockHash });
    parent = p.blockHash;
    out.push(p);
  }
  return out;
}

describe('openStagePools', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-stages-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('puts both stages on workers for an on-disk database, the hasher inline for the memory engine', async () => {
    const disk = await openDatabase({ datadir: dir });
    const onDisk = openStagePools(disk, { workers: true, hasher: {}, senderChunk: 8 });
    expect(onDisk.thread).toBe('worker');
    expect(onDisk.senders).toBeInstanceOf(PooledSenderRecovery);
    // The hasher's thread starts with the first block hashed, not before (./hasher/lazy.test.ts).
    expect(onDisk.hasher).toBeInstanceOf(LazyTrieHasher);
    expect((onDisk.hasher as LazyTrieHasher).started).toBe(false);
    // The hasher's thread reads a block's accounts while it executes, on any number of cores (not --cache.noprefetch).
    expect(onDisk.hasher.warming).toBe(true);
    await onDisk.close();
    const noPrefetch = openStagePools(disk, { workers: true, hasher: { prefetch: false }, senderChunk: 8 });
    expect(noPrefetch.hasher.warming).toBe(false);
    await noPrefetch.close();
    const inline = openStagePools(disk, { workers: false, hasher: { prefetch: true }, senderChunk: 8 });
    expect(inline.thread).toBe('inline');
    expect(inline.senders).toBeInstanceOf(InlineSenderRecovery);
    expect(inline.hasher).toBeInstanceOf(InlineTrieHasher);
    expect(inline.prefetch).toBe(false);
    expect(inline.hasher.warming).toBe(false);
    await disk.close();
    const memory = await openDatabase({ engine: 'memory' });
    const mem = openStagePools(memory, { workers: true, hasher: {}, senderChunk: 8 });
    expect(mem.thread).toBe('inline');
    expect(mem.hasher).toBeInstanceOf(InlineTrieHasher);
    expect(mem.senders).toBeInstanceOf(PooledSenderRecovery);
    await mem.close();
    await memory.close();
  });
});

describe.each(['inline', 'worker'] as const)('newPayload with the import stages %s', (stages) => {
  it('imports back-to-back payloads; a wrong state root rejects its block, which is not stored', async () => {
    const src = await engineFixture();
    const imported: ImportTimings[] = [];
    const node = await engineFixture({ stages, imported: (t) => imported.push(t) });
    try {
      const payloads = await chainOf(src, 4);
      const [p1, p2, p3, p4] = payloads as [ExecutionPayload, ExecutionPayload, ExecutionPayload, ExecutionPayload];
      const fc = (head: Uint8Array) => ({ headBlockHash: head, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 });
      for (const p of [p1, p2]) {
        expect(await node.api.newPayload(3, p, [], BEACON)).toEqual({
          status: 'VALID',
          latestValidHash: p.blockHash,
          validationError: null,
        });
        expect((await node.api.forkchoiceUpdated(3, fc(p.blockHash))).payloadStatus.status).toBe('VALID');
      }
      // Block 3 with a wrong state root: INVALID naming block 2 as the latest valid one; nothing of it stored.
      const bad = rehash(node.api, { ...p3, stateRoot: new Uint8Array(32).fill(1) });
      const s = await node.api.newPayload(3, bad, [], BEACON);
      expect(s.status).toBe('INVALID');
      expect(hex(s.latestValidHash as Uint8Array)).toBe(hex(p2.blockHash));
      expect(s.validationError).toMatch(/state root mismatch/);
      expect(node.store.headerByHash(bad.blockHash)).toBeUndefined();
      expect(node.store.hasState(bad.blockHash)).toBe(false);
      expect(node.store.canonicalHash(3n)).toBeUndefined();
      // A child of the bad block is refused without execution, and forkchoice to the bad block too.
      const child = rehash(node.api, { ...p4, parentHash: bad.blockHash });
      expect((await node.api.newPayload(3, child, [], BEACON)).status).toBe('INVALID');
      expect(node.store.headerByHash(child.blockHash)).toBeUndefined();
      expect((await node.api.forkchoiceUpdated(3, fc(bad.blockHash))).payloadStatus.status).toBe('INVALID');
      expect(hex(node.store.head().hash)).toBe(hex(p2.blockHash));
      // The real blocks 3 and 4 then import on block 2's state, and the state matches the source's.
      for (const p of [p3, p4]) {
        expect((await node.api.newPayload(3, p, [], BEACON)).status).toBe('VALID');
        expect((await node.api.forkchoiceUpdated(3, fc(p.blockHash))).payloadStatus.status).toBe('VALID');
      }
      expect(hex(node.store.head().hash)).toBe(hex(p4.blockHash));
      // The chain/* timers are fed for the four executed blocks (not for the rejected one or known payloads).
      expect(await node.api.newPayload(3, p4, [], BEACON)).toMatchObject({ status: 'VALID' });
      expect(imported).toHaveLength(4);
      for (const t of imported) expect(t.execution).toBeGreaterThan(0);
      expect(hex(node.store.head().header.stateRoot)).toBe(hex(src.store.head().header.stateRoot));
    } finally {
      await node.close();
      await src.close();
    }
  }, 60_000);

  it('rejects a block whose later transaction has no recoverable sender (execution started on the first chunk)', async () => {
    const src = await engineFixture();
    const node = await engineFixture({ stages });
    try {
      const [p1] = (await chainOf(src, 1)) as [ExecutionPayload];
      // Six transfers, recovered in chunks of four: the broken one is in the second chunk.
      const txs = p1.transactions.map((t, i) => (i === 5 ? highS(t) : t));
      const bad = rehash(node.api, { ...p1, transactions: txs });
      const s = await node.api.newPayload(3, bad, [], BEACON);
      expect(s.status).toBe('INVALID');
      expect(s.validationError).toMatch(/transaction 5: invalid transaction v, r, s values$/);
      expect(node.store.hasState(bad.blockHash)).toBe(false);
      expect(node.store.headerByHash(bad.blockHash)).toBeUndefined();
      // The genuine block then executes on the untouched genesis state.
      expect((await node.api.newPayload(3, p1, [], BEACON)).status).toBe('VALID');
      const fc = { headBlockHash: p1.blockHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
      expect((await node.api.forkchoiceUpdated(3, fc)).payloadStatus.status).toBe('VALID');
      expect(hex(node.store.head().header.stateRoot)).toBe(hex(src.store.head().header.stateRoot));
    } finally {
      await node.close();
      await src.close();
    }
  }, 60_000);

  it("rejects a block whose last transaction, in the stream's last chunk, has a bad signature", async () => {
    const src = await engineFixture();
    const node = await engineFixture({ stages });
    try {
      const [p1] = (await chainOf(src, 1, 14)) as [ExecutionPayload];
      expect(p1.transactions).toHaveLength(14);
      const txs = p1.transactions.map((t, i) => (i === 13 ? highS(t) : t));
      const bad = rehash(node.api, { ...p1, transactions: txs });
      const s = await node.api.newPayload(3, bad, [], BEACON);
      expect(s.status).toBe('INVALID');
      expect(s.validationError).toMatch(/is invalid: transaction 13: invalid transaction v, r, s values$/);
      expect(node.store.headerByHash(bad.blockHash)).toBeUndefined();
      expect((await node.api.newPayload(3, p1, [], BEACON)).status).toBe('VALID');
    } finally {
      await node.close();
      await src.close();
    }
  }, 60_000);

  it('builds and re-imports its own payload on the stages (sequencer path)', async () => {
    const node = await engineFixture({ stages });
    try {
      node.pool.txs = [pending(await transfer(0))];
      const state = { headBlockHash: node.genesisHash, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
      const fcu = await node.api.forkchoiceUpdated(3, state, attributes(12n));
      const p = node.api.getPayload(3, fcu.payloadId as Uint8Array).executionPayload;
      expect(p.transactions).toHaveLength(1);
      expect((await node.api.newPayload(3, p, [], BEACON)).status).toBe('VALID');
      expect((await node.api.forkchoiceUpdated(3, { ...state, headBlockHash: p.blockHash })).payloadStatus.status).toBe(
        'VALID',
      );
      expect(node.store.head().number).toBe(1n);
    } finally {
      await node.close();
    }
  }, 60_000);
});
