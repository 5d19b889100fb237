// The lazily started trie hasher: nothing starts until a block is hashed (or prefetched for, when prefetching), and
// then every call goes to the one hasher it started.
import { describe, expect, it } from 'vitest';
import type { TrieCommit, TrieHasher } from '../../../../../src/main/exec/hasher/interface.js';
import { LazyTrieHasher } from '../../../../../src/main/exec/hasher/lazy.js';

function recording(): { hasher: TrieHasher; calls: string[] } {
  const calls: string[] = [];
  const hasher: TrieHasher = {
    prefetching: true,
    commit: async (root) => {
      calls.push(`commit ${root[0]}`);
      return { root, layer: 1 } as unknown as TrieCommit;
    },
    prefetch: (root) => {
      calls.push(`prefetch ${root[0]}`);
    },
    warming: true,
    warm: (root) => {
      calls.push(`warm ${root[0]}`);
    },
    release: (layer) => {
      calls.push(`release ${layer}`);
    },
    close: async () => {
      calls.push('close');
    },
  };
  return { hasher, calls };
}

describe('LazyTrieHasher', () => {
  it('starts the hasher on the first commit, once, and passes every call to it', async () => {
    const { hasher, calls } = recording();
    let starts = 0;
    const lazy = new LazyTrieHasher(() => {
      starts++;
      return hasher;
    }, false);
    lazy.release(3); // nothing to release before a commit
    lazy.prefetch(Uint8Array.of(1), []); // not prefetching: no start for a hint
    lazy.warm(Uint8Array.of(1), []); // not warming either
    expect(lazy.started).toBe(false);
    expect(starts).toBe(0);
    const out = await lazy.commit(Uint8Array.of(2), {} as never, { keep: true });
    expect(out.layer).toBe(1);
    await lazy.commit(Uint8Array.of(4), {} as never);
    lazy.release(1);
    await lazy.close();
    expect(starts).toBe(1);
    expect(calls).toEqual(['commit 2', 'commit 4', 'release 1', 'close']);
  });

  it('starts for a prefetch when prefetching, and closes without starting when never used', async () => {
    const { hasher, calls } = recording();
    const prefetching = new LazyTrieHasher(() => hasher, true);
    prefetching.prefetch(Uint8Array.of(5), []);
    expect(prefetching.started).toBe(true);
    expect(calls).toEqual(['prefetch 5']);
    let starts = 0;
    const idle = new LazyTrieHasher(() => {
      starts++;
      return hasher;
    }, true);
    await idle.close();
    expect(starts).toBe(0);
  });

  it('starts for a warm when warming, and passes it on', () => {
    const { hasher, calls } = recording();
    const warming = new LazyTrieHasher(() => hasher, false, true);
    warming.prefetch(Uint8Array.of(6), []);
    expect(warming.started).toBe(false);
    warming.warm(Uint8Array.of(7), []);
    expect(warming.started).toBe(true);
    expect(calls).toEqual(['warm 7']);
  });
});
