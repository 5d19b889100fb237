// CI's subset of the P2P fuzz harness (bench/fuzz/p2p.ts; `npm run fuzz` runs 1,000,000): 10,000 random and
// mutated gossip and req-resp messages, zero crashes, and the unmutated corpus is accepted (so the harness does
// reach the deep checks rather than failing everything at the first byte).
import { describe, expect, it } from 'vitest';
import { runP2PFuzz } from '../../../../bench/fuzz/p2p.js';

describe('P2P fuzz subset', () => {
  it('feeds 10,000 messages to the validators and decoders with 0 crashes', async () => {
    const res = await runP2PFuzz(10_000, 12345);
    expect(res.firstCrash).toBeUndefined();
    expect(res.crashes).toBe(0);
    expect(res.messages).toBe(10_000);
  }, 60_000);
});
