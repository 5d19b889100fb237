import { describe, expect, it } from 'vitest';
import { backoffDelay, FailureStreak } from '../../../../src/main/common/backoff.js';

describe('backoffDelay', () => {
  it('doubles from the base up to the bound; the jittered share is drawn from [0, share]', () => {
    const fixed = { baseMs: 100, maxMs: 1000, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6, 60].map((n) => backoffDelay(n, fixed))).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1000, jitter: 0.5, random: () => 0 })).toBe(200);
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1000, jitter: 0.5, random: () => 0.999999 })).toBe(400);
  });
});

describe('FailureStreak', () => {
  it('reports the first failure, then a summary per period with the suppressed count, then the recovery', () => {
    let t = 0;
    const s = new FailureStreak(30_000, () => t);
    expect(s.fail()).toEqual({ kind: 'first' });
    const kinds: string[] = [];
    for (let i = 0; i < 60; i++) {
      t += 1000;
      kinds.push(s.fail().kind);
    }
    expect(kinds.filter((k) => k === 'summary')).toHaveLength(2);
    t = 30_000;
    expect(s.failures).toBe(61);
    expect(s.succeed()).toEqual({ failures: 61, lastedMs: 30_000 });
    expect(s.succeed()).toBeUndefined();
    expect(s.fail()).toEqual({ kind: 'first' });
  });

  it('a summary counts the failures it did not log', () => {
    let t = 0;
    const s = new FailureStreak(10, () => t);
    s.fail();
    s.fail();
    s.fail();
    t = 10;
    expect(s.fail()).toEqual({ kind: 'summary', failures: 4, sinceMs: 10, suppressed: 3 });
  });
});
