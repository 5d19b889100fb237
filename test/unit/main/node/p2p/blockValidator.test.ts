// Gossip block validation in op-node's order, one rule at a time: each test breaks exactly one thing in an
// otherwise valid signed message and expects that rule's verdict.
import { describe, expect, it } from 'vitest';
import { snappyCompress } from '../../../../../src/main/common/snappy.js';
import { BlockValidator } from '../../../../../src/main/node/p2p/blockValidator.js';
import type { RollupConfig } from '../../../../../src/main/primitives/rollup/config.js';
import {
  CFG,
  KEY,
  KEY_ADDRESS,
  NOW_S,
  OTHER_KEY,
  ROOT,
  signedMessage,
  validPayload,
} from '../../../../helpers/p2pBlocks.js';

/** `null`: no signer known yet. */
function validator(signer: string | null = KEY_ADDRESS, cfg: RollupConfig = CFG) {
  return new BlockValidator(
    cfg,
    { timestampThresholdMs: 60_000 },
    { signer: () => signer ?? undefined, now: () => NOW_S * 1000 },
  );
}

describe('BlockValidator', () => {
  it('accepts a valid signed v4 block and hands back the payload and parent beacon block root', async () => {
    const p = validPayload();
    const { version, data } = await signedMessage(p);
    expect(version).toBe(4);
    const r = validator().validate(4, data);
    expect(r.result).toBe('accept');
    if (r.result !== 'accept') throw new Error('unreachable');
    expect(r.payload).toEqual(p);
    expect(r.parentBeaconBlockRoot).toEqual(ROOT);
  });

  it('accepts v2 and v3 blocks on their own topics', async () => {
    const v2 = validPayload(
      { timestamp: 8990n, withdrawalsRoot: undefined, blobGasUsed: undefined, excessBlobGas: undefined },
      2,
    );
    const v = new BlockValidator(
      CFG,
      { timestampThresholdMs: 60_000 },
      { signer: () => KEY_ADDRESS, now: () => 9000_000 },
    );
    expect(v.validate(2, (await signedMessage(v2)).data).result).toBe('accept');
    const v3 = validPayload({ timestamp: 9001n, withdrawalsRoot: undefined }, 3);
    expect(v.validate(3, (await signedMessage(v3)).data).result).toBe('accept');
  });

  it('rejects bad snappy, undersized and oversized messages before anything else', () => {
    const v = validator();
    expect(v.validate(4, Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff))).toMatchObject({ result: 'reject' });
    expect(v.validate(4, snappyCompress(new Uint8Array(65)))).toMatchObject({ result: 'reject', reason: /below 66/ });
    // A header declaring 11 MiB: refused from the header alone (no 11 MiB allocation).
    const bomb = Uint8Array.of(0x80, 0x80, 0xc0, 0x05, 0x00);
    expect(v.validate(4, bomb)).toMatchObject({ result: 'reject', reason: /above/ });
  });

  it('rejects a block signed by another key and ignores everything while no signer is known', async () => {
    const { data } = await signedMessage(validPayload(), OTHER_KEY);
    expect(validator().validate(4, data)).toMatchObject({ result: 'reject', reason: /signed by/ });
    const good = await signedMessage(validPayload());
    expect(validator(null).validate(4, good.data)).toMatchObject({ result: 'ignore' });
    expect(validator(`0x${'00'.repeat(20)}`).validate(4, good.data)).toMatchObject({ result: 'ignore' });
  });

  it('rejects a corrupted signature and a tampered payload (signature no longer matches)', async () => {
    const { data } = await signedMessage(validPayload());
    const { snappyUncompress } = await import('../../../../../src/main/common/snappy.js');
    const raw = snappyUncompress(data, 1 << 24);
    const badV = raw.slice();
    badV[64] = 5;
    expect(validator().validate(4, snappyCompress(badV))).toMatchObject({ result: 'reject', reason: /signature/ });
    const tampered = raw.slice();
    tampered[raw.length - 1] = (tampered[raw.length - 1] as number) ^ 1;
    expect(validator().validate(4, snappyCompress(tampered))).toMatchObject({ result: 'reject' });
  });

  it('rejects a block from another chain (its signature commits to the chain id)', async () => {
    const other = { ...CFG, l2ChainId: 902n } as RollupConfig;
    const { data } = await signedMessage(validPayload(), KEY, other);
    expect(validator().validate(4, data)).toMatchObject({ result: 'reject', reason: /signed by/ });
  });

  it('rejects too old and too new timestamps', async () => {
    const old = await signedMessage(validPayload({ timestamp: BigInt(NOW_S - 61) }));
    expect(validator().validate(4, old.data)).toMatchObject({ result: 'reject', reason: /too old/ });
    const future = await signedMessage(validPayload({ timestamp: BigInt(NOW_S + 6) }));
    expect(validator().validate(4, future.data)).toMatchObject({ result: 'reject', reason: /future/ });
    const edge = await signedMessage(validPayload({ timestamp: BigInt(NOW_S + 5) }));
    expect(validator().validate(4, edge.data).result).toBe('accept');
  });

  it('rejects a wrong block hash, a block on the wrong topic, withdrawals and blob gas before Jovian', async () => {
    const wrongHash = { ...validPayload(), blockHash: new Uint8Array(32).fill(0xab) };
    expect(validator().validate(4, (await signedMessage(wrongHash)).data)).toMatchObject({ reason: /block hash/ });
    const v4 = await signedMessage(validPayload());
    // The v4 message decoded as v3 misreads its layout (rejected either way), and a v3 block on the v4 topic fails.
    expect(validator().validate(3, v4.data).result).toBe('reject');
    const withW = validPayload({
      withdrawals: [{ index: 1n, validatorIndex: 1n, address: new Uint8Array(20), amount: 1n }],
    });
    expect(validator().validate(4, (await signedMessage(withW)).data)).toMatchObject({ reason: /withdrawals/ });
    const blob = validPayload({ blobGasUsed: 5n });
    expect(validator().validate(4, (await signedMessage(blob)).data)).toMatchObject({ reason: /Jovian/ });
  });

  it('ignores a duplicate and rejects a sixth different block at the same height', async () => {
    const v = validator();
    const first = await signedMessage(validPayload());
    expect(v.validate(4, first.data).result).toBe('accept');
    expect(v.validate(4, first.data)).toMatchObject({ result: 'ignore', reason: /already seen/ });
    for (let i = 1; i <= 5; i++) {
      const other = await signedMessage(validPayload({ gasUsed: BigInt(21_000 + i) }));
      expect(v.validate(4, other.data).result).toBe('accept');
    }
    const seventh = await signedMessage(validPayload({ gasUsed: 99_999n }));
    expect(v.validate(4, seventh.data)).toMatchObject({ result: 'reject', reason: /more than 5/ });
    // Another height is unaffected.
    const next = await signedMessage(validPayload({ blockNumber: 8n }));
    expect(v.validate(4, next.data).result).toBe('accept');
  });
});
