// Gossip validation on the worker pool: the same messages through the pool thread (node/workers/gossipBlocks.ts,
// compiled from dist/) and inline give the same verdicts and reasons, in op-node's order; the per-height rule
// still holds across pooled messages; small messages stay inline (a plain value, no promise); a closed pool makes
// the message an ignore, never a crash. A second part runs two hosts whose receiver validates every block on the
// pool: a valid block is delivered and a forged one rejected through gossipsub's awaited topic validator.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { snappyCompress } from '../../../../../src/main/common/snappy.js';
import {
  type BlockValidation,
  BlockValidator,
  type BlockValidatorOptions,
} from '../../../../../src/main/node/p2p/blockValidator.js';
import { BlockGossip, type GossipBlock } from '../../../../../src/main/node/p2p/gossip.js';
import { P2PHost } from '../../../../../src/main/node/p2p/host.js';
import { blocksTopic } from '../../../../../src/main/node/p2p/topics.js';
import {
  createGossipValidationPool,
  type GossipTasks,
  pooledBlockCheck,
} from '../../../../../src/main/node/p2p/validationPool.js';
import type { WorkerPool } from '../../../../../src/main/pool/interface.js';
import { CFG, KEY_ADDRESS, NOW_S, OTHER_KEY, signedMessage, validPayload } from '../../../../helpers/p2pBlocks.js';
import { waitUntil } from '../../../../helpers/waitUntil.js';

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

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

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

describe('two hosts, the receiver validating every block on the pool', () => {
  it('delivers a valid block and rejects a forged one through the awaited topic validator', async () => {
    const pool = createGossipValidationPool();
    const received: GossipBlock[] = [];
    const verdicts: string[] = [];
    const make = async (offload: boolean) => {
      const host = await P2PHost.create(
        {
          privateKey: randomBytes(32),
          listenIp: '127.0.0.1',
          listenTcp: 0,
          staticPeers: [],
          netrestrict: [],
          peersHi: 30,
        },
        { logger },
      );
      const v = new BlockValidator(
        CFG,
        { timestampThresholdMs: 60_000, ...(offload ? { offload: pooledBlockCheck(pool), offloadMinBytes: 0 } : {}) },
        { signer: () => KEY_ADDRESS },
      );
      const gossip = new BlockGossip(
        CFG,
        host.node,
        v,
        { onBlock: (b) => received.push(b), onValidation: (_p, o) => verdicts.push(o.result) },
        { logger },
      );
      gossip.attach();
      await host.start();
      gossip.subscribe();
      return { host, gossip };
    };
    const sender = await make(false);
    const receiver = await make(true);
    try {
      await receiver.host.node.dial(sender.host.node.getMultiaddrs()[0] as never);
      const topic = blocksTopic(CFG.l2ChainId, 4);
      await until(() => [sender, receiver].every((n) => n.host.node.services.pubsub.getSubscribers(topic).length > 0));
      const now = BigInt(Math.floor(Date.now() / 1000));
      const forged = await signedMessage(validPayload({ blockNumber: 41n, timestamp: now }), OTHER_KEY);
      await sender.host.node.services.pubsub.publish(topic, forged.data);
      const good = await signedMessage(validPayload({ blockNumber: 42n, timestamp: now }));
      await sender.host.node.services.pubsub.publish(topic, good.data);
      await until(() => received.length > 0 && verdicts.includes('reject'));
      expect(received.map((b) => b.payload.blockNumber)).toEqual([42n]);
      expect(receiver.gossip.stats).toMatchObject({ accepted: 1, rejected: 1 });
    } finally {
      await receiver.host.stop();
      await sender.host.stop();
      await pool.close();
    }
  }, 30_000);
});

const until = (fn: () => boolean, ms = 15_000) => waitUntil(fn, { timeoutMs: ms, everyMs: 50 });
