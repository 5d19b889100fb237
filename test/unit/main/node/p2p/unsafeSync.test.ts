// The unsafe-block sync: blocks that extend the head go in at once, later blocks wait while the gap below them is
// fetched newest-first with each answer checked against its child's parentHash, a peer with a block off our chain
// is skipped for the next one, and blocks at or below the head are dropped.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { ExecutionPayload } from '../../../../../src/main/node/engine/interface.js';
import { type UnsafeBlock, UnsafeSync } from '../../../../../src/main/node/p2p/unsafeSync.js';
import type { L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;
const hash = (n: number, fork = 0) => {
  const h = new Uint8Array(32);
  new DataView(h.buffer).setUint32(0, n);
  h[31] = fork;
  return h;
};

function block(n: number, fork = 0): UnsafeBlock {
  return {
    payload: {
      blockNumber: BigInt(n),
      blockHash: hash(n, fork),
      parentHash: hash(n - 1, n - 1 === 0 ? 0 : fork),
    } as ExecutionPayload,
    parentBeaconBlockRoot: undefined,
  };
}

function chain(start: number) {
  let head = { number: start, hash: hex(hash(start)) } as L2BlockRef;
  const inserted: number[] = [];
  return {
    inserted,
    unsafeHead: () => head,
    insert: async (b: UnsafeBlock) => {
      if (hex(b.payload.parentHash) !== head.hash) throw new Error('does not extend the head');
      inserted.push(Number(b.payload.blockNumber));
      head = { number: Number(b.payload.blockNumber), hash: hex(b.payload.blockHash) } as L2BlockRef;
    },
  };
}

async function settle(fn: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !fn(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe('UnsafeSync', () => {
  it('inserts a block that extends the head and drops old ones', async () => {
    const c = chain(10);
    const s = new UnsafeSync({ logger, unsafeHead: c.unsafeHead, insert: c.insert });
    s.add(block(10));
    s.add(block(11));
    await settle(() => c.inserted.length === 1);
    expect(c.inserted).toEqual([11]);
    expect(s.pendingCount).toBe(0);
  });

  it('fills a gap over req-resp newest first, then inserts everything in order', async () => {
    const c = chain(10);
    const asked: bigint[] = [];
    const s = new UnsafeSync({
      logger,
      unsafeHead: c.unsafeHead,
      insert: c.insert,
      fetch: async (num) => {
        asked.push(num);
        return { block: block(Number(num)), peer: 'a' };
      },
    });
    s.add(block(16));
    await settle(() => c.inserted.length === 6);
    expect(asked).toEqual([15n, 14n, 13n, 12n, 11n]);
    expect(c.inserted).toEqual([11, 12, 13, 14, 15, 16]);
  });

  it("skips a peer whose block is off the chain and takes the next peer's", async () => {
    const c = chain(10);
    const peersAsked: string[][] = [];
    const s = new UnsafeSync({
      logger,
      unsafeHead: c.unsafeHead,
      insert: c.insert,
      fetch: async (num, exclude) => {
        peersAsked.push([...exclude]);
        // Peer "liar" answers blocks of another fork; "honest" the right ones.
        return exclude.has('liar')
          ? { block: block(Number(num)), peer: 'honest' }
          : { block: block(Number(num), 7), peer: 'liar' };
      },
    });
    s.add(block(12));
    await settle(() => c.inserted.length === 2);
    expect(c.inserted).toEqual([11, 12]);
    expect(peersAsked[0]).toEqual([]);
    expect(peersAsked[1]).toEqual(['liar']);
  });

  it('keeps the block when no peer has the gap, and completes once one does', async () => {
    const c = chain(10);
    let available = false;
    const s = new UnsafeSync({
      logger,
      unsafeHead: c.unsafeHead,
      insert: c.insert,
      fetch: async (num) => (available ? { block: block(Number(num)), peer: 'a' } : undefined),
    });
    s.add(block(13));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.inserted).toEqual([]);
    expect(s.pendingCount).toBe(1);
    available = true;
    s.poke();
    await settle(() => c.inserted.length === 3);
    expect(c.inserted).toEqual([11, 12, 13]);
  });

  it('during EL sync hands the newest block to the engine as is and requests nothing over req-resp', async () => {
    const c = chain(0);
    let syncing = true;
    const sent: number[] = [];
    const asked: bigint[] = [];
    const s = new UnsafeSync({
      logger,
      unsafeHead: c.unsafeHead,
      engineSyncing: () => syncing,
      // The engine takes any block while it syncs; it becomes the unsafe head (the controller's EL-sync target).
      insert: async (b) => {
        sent.push(Number(b.payload.blockNumber));
        if (syncing) return;
        await c.insert(b);
      },
      fetch: async (num) => {
        asked.push(num);
        return { block: block(Number(num)), peer: 'a' };
      },
    });
    s.add(block(30));
    s.add(block(29));
    s.add(block(31));
    await settle(() => sent.includes(31));
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toEqual([]);
    expect(sent).not.toContain(29);
    expect(sent.at(-1)).toBe(31);
    // Once the engine is done, a block ahead of the head is back to the req-resp gap filling.
    syncing = false;
    s.add(block(3));
    await settle(() => c.inserted.length === 3);
    expect(asked).toEqual([2n, 1n]);
    expect(c.inserted).toEqual([1, 2, 3]);
  });
});
