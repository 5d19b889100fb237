// Gossip validation on the worker pool: the same messages through the pool thread (node/workers/gossipBlocks.ts,
// compiled from dist/) and inline give the same verdicts and reasons, in op-node's order; the per-height rule
// still holds across pooled messages; small messages stay inline (a plain value, no promise); a closed pool makes
// the message an ignore, never a crash.
// Over the network: test/unit/main/node/p2p/network.test.ts validates its large blocks on the pool.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snappyCompress } from '../../../../../src/main/common/snappy.js';
import {
  type BlockValidation,
  BlockValidator,
  type BlockValidatorOptions,
} from '../../../../../src/main/node/p2p/blockValidator.js';
import {
  createGossipValidationPool,
  type GossipTasks,
  pooledBlockCheck,
} from '../../../../../src/main/node/p2p/validationPool.js';
import type { WorkerPool } from '../../../../../src/main/pool/interface.js';
import { CFG, KEY_ADDRESS, NOW_S, OTHER_KEY, signedMessage, validPayload } from '../../../../helpers/p2pBlocks.js';

function validator(opts: Partial<BlockValidatorOptions> = {}, signer: string | null = KEY_ADDRESS) {
  return new BlockValidator(
    CFG,
    { timestampThresholdMs: 60_000, ...opts },
    { signer: () => signer ?? undefined, now: () => NOW_S * 1000 },
  );
}

/** Messages covering each rule: [name, data]. */
async function cases(): Promise<Array<[string, Uint8Array]>> {
  const valid = await signedMessage(validPayload({ blockNumber: 11n }));
  const wrongSigner = await signedMessage(validPayload({ blockNumber: 12n }), OTHER_KEY);
  const tooOld = await signedMessage(validPayload({ blockNumber: 13n, timestamp: BigInt(NOW_S - 120) }));
  const future = await signedMessage(validPayload({ blockNumber: 14n, timestamp: BigInt(NOW_S + 60) }));
  const badHash = validPayload({ blockNumber: 15n });
  badHash.blockHash = new Uint8Array(32).fill(9);
  const big = await signedMessage(validPayload({ blockNumber: 16n, transactions: [randomBytes(300_000)] }));
  return [
    ['valid', valid.data],
    ['wrong signer', wrongSigner.data],
    ['too old', tooOld.data],
    ['too far ahead', future.data],
    ['bad block hash', (await signedMessage(badHash)).data],
    ['garbage inside valid snappy', snappyCompress(randomBytes(500))],
    ['bad snappy', Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff)],
    ['large valid', big.data],
  ];
}

const verdict = (o: BlockValidation) => (o.result === 'accept' ? { result: 'accept' } : o);

describe('gossip validation on the pool', () => {
  let pool: WorkerPool<GossipTasks>;
  beforeAll(() => {
    pool = createGossipValidationPool();
  });
  afterAll(async () => pool.close());

  it('gives the same verdicts and reasons as inline, payloads included', async () => {
    const inline = validator();
    const pooled = validator({ offload: pooledBlockCheck(pool), offloadMinBytes: 0 });
    for (const [name, data] of await cases()) {
      const expected = inline.validate(4, data);
      const pending = pooled.validateMessage(4, data);
      expect(pending, name).toBeInstanceOf(Promise);
      const got = await pending;
      expect(verdict(got), name).toEqual(verdict(expected));
      if (expected.result === 'accept' && got.result === 'accept') expect(got.payload, name).toEqual(expected.payload);
    }
  });

  it('keeps the per-height rule and the signer check across pooled messages', async () => {
    const pooled = validator({ offload: pooledBlockCheck(pool), offloadMinBytes: 0 });
    const { data } = await signedMessage(validPayload({ blockNumber: 21n }));
    expect((await pooled.validateMessage(4, data)).result).toBe('accept');
    expect(await pooled.validateMessage(4, data)).toMatchObject({ result: 'ignore', reason: /already seen/ });
    // Six more different blocks at height 22: the sixth distinct one is refused.
    const results: string[] = [];
    for (let i = 0; i < 7; i++) {
      const m = await signedMessage(validPayload({ blockNumber: 22n, gasUsed: BigInt(1000 + i) }));
      results.push((await pooled.validateMessage(4, m.data)).result);
    }
    expect(results).toEqual(['accept', 'accept', 'accept', 'accept', 'accept', 'accept', 'reject']);
    const unknownSigner = validator({ offload: pooledBlockCheck(pool), offloadMinBytes: 0 }, null);
    expect(await unknownSigner.validateMessage(4, data)).toMatchObject({ result: 'ignore', reason: /no unsafe/ });
  });

  it('validates messages below the threshold inline, and ignores what a closed pool cannot check', async () => {
    const { data } = await signedMessage(validPayload({ blockNumber: 31n }));
    const split = validator({ offload: pooledBlockCheck(pool), offloadMinBytes: data.length + 1 });
    const small = split.validateMessage(4, data);
    expect(small).not.toBeInstanceOf(Promise);
    expect((small as BlockValidation).result).toBe('accept');

    const closed = createGossipValidationPool();
    await closed.close();
    const v = validator({ offload: pooledBlockCheck(closed), offloadMinBytes: 0 });
    expect(await v.validateMessage(4, data)).toMatchObject({ result: 'ignore', reason: /validation unavailable/ });
  });
});
