// Whether a forkchoiceUpdated may write its head's trie nodes after the head (ChainStore.commitBlock's `deferNodes`),
// one switch per database. The state pruner turns it off for a whole prune: its mark and sweep rely on every head's
// nodes landing in the head's own batch (a sweep batch must never follow a node write it has not marked). hold()
// turns deferral off at once for the next forkchoiceUpdated and resolves once the write the executor may still have
// in flight has landed (the barrier the executor registers); the returned release turns deferral back on.

export class TrieNodeWrites {
  #holds = 0;
  #barrier: (() => Promise<void>) | undefined;

  /** True when a forkchoiceUpdated decided now may defer its head's trie nodes. */
  get deferrable(): boolean {
    return this.#holds === 0;
  }

  /** How to wait for the executor's deferred node write in flight (its last forkchoiceUpdated's); one executor. */
  setBarrier(barrier: (() => Promise<void>) | undefined): void {
    this.#barrier = barrier;
  }

  /**
   * Turns deferral off. `ready` is undefined when nothing can be in flight (no executor registered), else it
   * settles once the in-flight write has landed (never rejects). Call `release` exactly when the hold ends.
   */
  hold(): { release: () => void; ready: Promise<void> | undefined } {
    this.#holds++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.#holds--;
    };
    const barrier = this.#barrier;
    return { release, ready: barrier === undefined ? undefined : barrier().catch(() => {}) };
  }
}

const switches = new WeakMap<object, TrieNodeWrites>();

/** The switch of a database (created on first use). */
export function trieNodeWrites(db: object): TrieNodeWrites {
  let s = switches.get(db);
  if (!s) {
    s = new TrieNodeWrites();
    switches.set(db, s);
  }
  return s;
}
