// CI's subset of the devp2p fuzz harness (bench/fuzz/devp2p.ts; `npm run fuzz:devp2p` runs 1,000,000): 10,000
// random and mutated eth/68 and snap/1 messages through live sessions and the decoders, zero crashes, and some
// messages accepted (so the harness reaches past the first check rather than failing everything at once).
import { describe, expect, it } from 'vitest';
import { runDevP2pFuzz } from '../../../../bench/fuzz/devp2p.js';

describe('devp2p fuzz subset', () => {
  it('feeds 10,000 messages to the sessions and decoders with 0 crashes', async () => {
    const res = await runDevP2pFuzz(10_000, 4242);
    expect(res.firstCrash).toBeUndefined();
    expect(res.crashes).toBe(0);
    expect(res.messages).toBe(10_000);
    expect(res.accepted).toBeGreaterThan(100);
  }, 60_000);
});
