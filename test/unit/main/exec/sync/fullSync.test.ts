// Full sync between in-memory peers serving the execution-apis test chain (20 Cancun blocks, 73 transactions): the
// synced node must end on the same head hash, with every block executed, whatever the lying or silent peers do.
import { afterEach, describe, expect, it } from 'vitest';
import { type SyncHandle, startSync } from '../../../../../src/main/exec/sync/service.js';
import { toHex } from '../../../../../src/main/primitives/bytes.js';
import { FakePeer, FakePeerSet } from './fakePeers.js';
import { emptyNode, type LogLine, opened, peers, recordingLogger, silent, small, sourceChain } from './syncFixture.js';

afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

async function syncTo(handle: SyncHandle, hash: Uint8Array): Promise<void> {
  handle.target(hash);
  await handle.idle();
}

describe('full sync', () => {
  it('syncs an empty node to the peers’ head from two honest peers, reporting progress', async () => {
    const chain = await sourceChain();
    const target = chain.head();
    const node = await emptyNode();
    const { set, list } = await peers(['honest', 'honest']);
    const lines: LogLine[] = [];
    const sync = startSync({ ...node, peers: set, logger: recordingLogger(lines), limits: small });
    opened.push(sync);
    const seen: bigint[] = [];
    const poll = setInterval(() => {
      const p = sync.progress();
      if (p) seen.push(p.currentBlock);
    }, 0);
    await syncTo(sync, target.hash);
    clearInterval(poll);
    expect(toHex(node.store.head().hash)).toBe(toHex(target.hash));
    expect(node.store.head().number).toBe(20n);
    expect(node.store.hasState(target.hash)).toBe(true);
    // Every block is the peers' block, executed here (receipts stored).
    for (let n = 1n; n <= 20n; n++) {
      expect(toHex(node.store.canonicalHash(n)!)).toBe(toHex(chain.canonicalHash(n)!));
      expect(node.store.receipts(n, node.store.canonicalHash(n)!)).toBeDefined();
    }
    expect(sync.status()).toEqual({ state: 'idle', target: undefined, error: undefined });
    expect(sync.progress()).toBeUndefined();
    // Both peers did work (batches go to idle peers in parallel).
    expect(list.every((p) => p.requests > 0)).toBe(true);
    const segments = lines.filter((l) => l.msg === 'Imported new chain segment');
    expect(segments.length).toBeGreaterThan(0);
    expect(segments.at(-1)!.fields.number).toBe(20n);
    expect(seen.length === 0 || seen.every((n) => n >= 0n && n <= 20n)).toBe(true);
  });

  it('reaches the target despite a peer sending wrong headers, one sending wrong bodies and one never answering', async () => {
    const chain = await sourceChain();
    const target = chain.head();
    const node = await emptyNode();
    const { set, list } = await peers(['wrong-header', 'bad-body', 'silent', 'honest']);
    const sync = startSync({
      ...node,
      peers: set,
      logger: silent,
      limits: small,
      peerLimits: { requestTimeoutMs: 50, restMs: 10, maxTimeouts: 2 },
    });
    opened.push(sync);
    await syncTo(sync, target.hash);
    expect(toHex(node.store.head().hash)).toBe(toHex(target.hash));
    const [liarHeaders, liarBodies, silentPeer, honest] = list as [FakePeer, FakePeer, FakePeer, FakePeer];
    expect(liarHeaders.penalties.length).toBe(1);
    expect(liarBodies.penalties).toHaveLength(1);
    expect(liarBodies.penalties[0]).toMatch(/transactions root mismatch/);
    expect(honest.penalties).toEqual([]);
    // The silent peer was asked, timed out, and was dropped after two timeouts in a row.
    expect(silentPeer.requests).toBeGreaterThan(0);
    expect(silentPeer.penalties).toEqual(['2 requests in a row timed out']);
    // Nothing of the run goes on asking once it is over.
    const asked = list.map((p) => p.requests);
    await new Promise((r) => setTimeout(r, 100));
    expect(list.map((p) => p.requests)).toEqual(asked);
  });

  it('starts from the common ancestor when the node holds part of the chain', async () => {
    const chain = await sourceChain();
    const node = await emptyNode(12);
    expect(node.store.head().number).toBe(12n);
    const { set, list } = await peers(['honest']);
    const sync = startSync({ ...node, peers: set, logger: silent, limits: { ...small, headerLookahead: 1 } });
    opened.push(sync);
    await syncTo(sync, chain.head().hash);
    expect(toHex(node.store.head().hash)).toBe(toHex(chain.head().hash));
    // 8 blocks: one target header, two skeleton batches of 4, three fill batches (headers + bodies).
    expect(list[0]!.requests).toBe(1 + 2 + 3 * 2);
  });

  it('syncs to a block below the peers’ head (the target, not the peers’ head, decides)', async () => {
    const chain = await sourceChain();
    const node = await emptyNode();
    const { set } = await peers(['honest']);
    const sync = startSync({ ...node, peers: set, logger: silent, limits: small });
    opened.push(sync);
    await syncTo(sync, chain.canonicalHash(7n)!);
    expect(node.store.head().number).toBe(7n);
    expect(toHex(node.store.head().hash)).toBe(toHex(chain.canonicalHash(7n)!));
  });

  it('waits for a peer that has the target, and gives an unknown target up for a newer one', async () => {
    const chain = await sourceChain();
    const node = await emptyNode();
    const set = new FakePeerSet();
    const sync = startSync({ ...node, peers: set, logger: silent, limits: small });
    opened.push(sync);
    sync.target(new Uint8Array(32).fill(7)); // no peer will ever have it
    expect(sync.status().state).toBe('syncing');
    await new Promise((r) => setTimeout(r, 50));
    set.add(new FakePeer('aa'.repeat(32), chain));
    await new Promise((r) => setTimeout(r, 50));
    expect(node.store.head().number).toBe(0n);
    sync.target(chain.canonicalHash(5n)!);
    await sync.idle();
    expect(node.store.head().number).toBe(5n);
    expect(sync.status().state).toBe('idle');
  });

  it('runs full sync for --syncmode snap, saying so once', async () => {
    const node = await emptyNode();
    const lines: LogLine[] = [];
    const sync = startSync({ ...node, peers: new FakePeerSet(), logger: recordingLogger(lines), mode: 'snap' });
    opened.push(sync);
    expect(lines.filter((l) => /Snap sync is not built/.test(l.msg))).toHaveLength(1);
  });

  it('stops when closed, keeping the blocks imported so far', async () => {
    const chain = await sourceChain();
    const node = await emptyNode();
    const { set } = await peers(['silent']);
    const sync = startSync({
      ...node,
      peers: set,
      logger: silent,
      limits: small,
      peerLimits: { requestTimeoutMs: 10_000 },
    });
    sync.target(chain.head().hash);
    await new Promise((r) => setTimeout(r, 20));
    await sync.close();
    expect(node.store.head().number).toBe(0n);
    expect(sync.status().state).toBe('idle');
  });
});
