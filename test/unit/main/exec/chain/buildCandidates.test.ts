// The executor thread's view of the tx pool: the coordinator's snapshot replays what the pool yields, skipping a
// sender drops the rest of its transactions there as in the pool, and the snapshot stops at its gas bound.
import { describe, expect, it } from 'vitest';
import { candidateSource, takeCandidates } from '../../../../../src/main/exec/chain/buildCandidates.js';
import type { BuildTx, BuildTxSource } from '../../../../../src/main/exec/chain/builder.js';
import type { BlockTxFilter } from '../../../../../src/main/exec/txpool/interface.js';

const sender = (n: number) => new Uint8Array(20).fill(n);
const tx = (from: number, nonce: number, gasLimit = 21_000n, type = 2): BuildTx => ({
  tx: { type, gasLimit, raw: Uint8Array.of(from, nonce) },
  sender: sender(from),
});

/** A pool that yields a fixed merge order and honours skipSender, as TxPool.pendingForBlock does. */
function fixedPool(list: BuildTx[]): BuildTxSource & { skipped: number[] } {
  const skippedLog: number[] = [];
  return {
    skipped: skippedLog,
    pendingForBlock() {
      const skip = new Set<number>();
      return {
        skipSender(s: Uint8Array) {
          skip.add(s[0] as number);
          skippedLog.push(s[0] as number);
        },
        *[Symbol.iterator]() {
          for (const t of list) if (!skip.has(t.sender[0] as number)) yield t;
        },
      };
    },
  };
}

/** A builder-like consumer: takes transactions while gas lasts, skips sender 2 at its first transaction. */
function consume(source: BuildTxSource, filter: BlockTxFilter): string[] {
  const out: string[] = [];
  let left = filter.gasLimit;
  const it = source.pendingForBlock(filter);
  for (const { tx: t, sender: s } of it) {
    if (s[0] === 2 || t.gasLimit > left) {
      it.skipSender(s);
      continue;
    }
    out.push(Buffer.from(t.raw).toString('hex'));
    left -= t.gasLimit;
  }
  return out;
}

const filter: BlockTxFilter = { baseFee: 1n, gasLimit: 100_000n };

describe('build candidates for the executor thread', () => {
  it('replays the pool: the same transactions in the same order under the same skips', () => {
    const list = [tx(1, 0), tx(2, 0), tx(3, 0, 50_000n), tx(1, 1), tx(2, 1), tx(3, 1), tx(1, 2)];
    const pool = fixedPool(list);
    const direct = consume(pool, filter);
    const replayed = consume(candidateSource(takeCandidates(pool, filter, true)), filter);
    expect(direct).toEqual(['0100', '0300', '0101']);
    expect(replayed).toEqual(direct);
  });

  it('skips what no block takes (deposits, blob transactions on OP chains) at the pool', () => {
    const pool = fixedPool([tx(1, 0, 21_000n, 0x7e), tx(1, 1), tx(4, 0, 21_000n, 3), tx(5, 0)]);
    const taken = takeCandidates(pool, { ...filter, blobBaseFee: 1n }, true);
    expect(taken.map((c) => c.sender[0])).toEqual([5]);
    expect(pool.skipped).toEqual([1, 4]);
  });

  it('stops at twice the block gas, and drops a sender whose next transaction exceeds the gas asked for', () => {
    const list = Array.from({ length: 20 }, (_, i) => tx(10 + i, 0, 30_000n));
    const taken = takeCandidates(fixedPool(list), filter, false);
    // 30k each: the bound (200k) is reached after 7 (210k).
    expect(taken).toHaveLength(7);
    const source = candidateSource([
      ...takeCandidates(fixedPool([tx(1, 0, 60_000n), tx(1, 1)]), filter, false),
      ...taken.slice(0, 1),
    ]);
    const seen = [...source.pendingForBlock({ ...filter, gasLimit: 50_000n })].map((c) => c.sender[0]);
    expect(seen).toEqual([10]);
  });
});
