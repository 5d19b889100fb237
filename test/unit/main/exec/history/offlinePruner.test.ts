// `snapshot prune-state`: the head's state survives whole, every other trie node and unused code is deleted, the
// bloom filter never loses a key it was given, and the kept state must be complete.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { codeKey } from '../../../../../src/main/exec/db/schema.js';
import { readTrieNode } from '../../../../../src/main/exec/db/state.js';
import { MissingStateError, pruneState } from '../../../../../src/main/exec/history/offlinePruner.js';
import { StateBloom } from '../../../../../src/main/exec/history/stateBloom.js';
import { readStatePrunedBelow, TrieMarker } from '../../../../../src/main/exec/history/statePruner.js';
import { trieNodeKey } from '../../../../../src/main/protocol/db/sharedEnv.js';
import { address, balances, type StateChain, stateChain } from './stateChain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const trieKeys = (c: StateChain) => [...c.db.kv.iterate({ prefix: Uint8Array.of(0x74) })].length;

/** Nodes of the state at `root` present and missing in the store. */
function walk(c: StateChain, root: Uint8Array): { present: number; missing: number } {
  const out = { present: 0, missing: 0 };
  const m = new TrieMarker();
  m.push(root);
  m.drain((h) => {
    const v = readTrieNode(c.db.kv, h);
    if (v === undefined) out.missing++;
    else out.present++;
    return v;
  }, Number.POSITIVE_INFINITY);
  return out;
}

let chains: StateChain[] = [];
afterEach(async () => {
  for (const c of chains) await c.db.close();
  chains = [];
});

describe('StateBloom', () => {
  it('contains every key added and few others; refuses keys that are not hashes', () => {
    const bloom = new StateBloom(1);
    const added = Array.from({ length: 2000 }, () => randomBytes(32));
    for (const k of added) bloom.add(k);
    expect(added.every((k) => bloom.contains(k))).toBe(true);
    const others = Array.from({ length: 2000 }, () => randomBytes(32)).filter((k) => bloom.contains(k));
    expect(others.length).toBeLessThan(3);
    expect(() => bloom.add(new Uint8Array(20))).toThrow(/32-byte hashes/);
    expect(() => new StateBloom(0)).toThrow(/positive number of MB/);
  });
});

describe('offline state pruning', () => {
  it('keeps exactly the head state and deletes older nodes and unused code', async () => {
    const c = await stateChain();
    chains.push(c);
    const roots = [(await c.block(balances(0, 60))).header.stateRoot];
    for (let n = 2; n <= 5; n++)
      roots.push((await c.block(new Map([[address(n), 1000n + BigInt(n)]]))).header.stateRoot);
    const head = c.store.head();
    const orphanCode = randomBytes(32);
    const b = c.db.kv.batch();
    b.put(codeKey(orphanCode), Uint8Array.of(0x60, 0x00));
    await b.commit();
    const headNodes = walk(c, head.header.stateRoot).present;
    const before = trieKeys(c);
    expect(before).toBeGreaterThan(headNodes);

    const result = await pruneState(
      c.db.kv,
      { root: head.header.stateRoot, headNumber: Number(head.number), bloomMB: 1 },
      { logger },
    );
    expect(result.keptNodes).toBe(headNodes);
    expect(result.deletedNodes).toBe(before - headNodes);
    expect(result.deletedCodes).toBe(1);
    expect(trieKeys(c)).toBe(headNodes);
    expect(walk(c, head.header.stateRoot).missing).toBe(0);
    // The older states lost nodes (the accounts changed since), and the prune is recorded.
    expect(walk(c, roots[0] as Uint8Array).missing).toBeGreaterThan(0);
    expect(c.db.kv.has(codeKey(orphanCode))).toBe(false);
    expect(readStatePrunedBelow(c.db.kv)).toBe(Number(head.number));
  });

  it('refuses to prune around an incomplete state, deleting nothing', async () => {
    const c = await stateChain();
    chains.push(c);
    await c.block(balances(0, 30));
    const head = c.store.head();
    const before = trieKeys(c);
    // Lose one deep node of the head state (the last one a walk reads).
    let victim = head.header.stateRoot;
    const m = new TrieMarker();
    m.push(head.header.stateRoot);
    m.drain((h) => {
      victim = h;
      return readTrieNode(c.db.kv, h);
    }, Number.POSITIVE_INFINITY);
    expect(Buffer.compare(victim, head.header.stateRoot)).not.toBe(0);
    const b = c.db.kv.batch();
    b.delete(trieNodeKey(victim));
    await b.commit();
    await expect(
      pruneState(c.db.kv, { root: head.header.stateRoot, headNumber: Number(head.number), bloomMB: 1 }, { logger }),
    ).rejects.toBeInstanceOf(MissingStateError);
    expect(trieKeys(c)).toBe(before - 1);
  });
});
