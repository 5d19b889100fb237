// A fuzz harness for tern-node's P2P input paths: random and mutated gossip messages through the block validator
// (every topic version), mutated SSZ payloads straight into the decoder and the block hash, and random and mutated
// req-resp requests and responses through their decoders. A crash is any exception the code does not mean to throw:
// validate() must never throw, and the decoders may only throw their TernErrors. `npm run fuzz` runs 1,000,000
// messages; the unit test runs a 10,000-message subset with the same code.
import { TernError } from '../../src/main/common/errors.js';
import { snappyCompress, snappyFrameDecode } from '../../src/main/common/snappy.js';
import type { ExecutionPayload } from '../../src/main/node/engine/interface.js';
import { payloadBlockHash } from '../../src/main/node/p2p/blockHash.js';
import { BlockValidator } from '../../src/main/node/p2p/blockValidator.js';
import { decodePayloadSsz } from '../../src/main/node/p2p/payloadSsz.js';
import { decodeRequest, decodeResponse, encodeOkResponse } from '../../src/main/node/p2p/reqResp.js';
import { type BlockVersion, encodePayloadSsz } from '../../src/main/node/signer/gossipPayload.js';
import { LocalSigner } from '../../src/main/node/signer/local.js';
import { signGossipBlock } from '../../src/main/node/signer/setup.js';
import { BENCH_CFG, BENCH_KEY, BENCH_SIGNER } from '../gossipFixture.js';
import { type Rng, xorshiftRng } from '../rng.js';

function mutate(r: Rng, input: Uint8Array): Uint8Array {
  const b = input.slice();
  switch (r.int(5)) {
    case 0: // flip a few bytes
      for (let i = 0, n = 1 + r.int(4); i < n && b.length > 0; i++) b[r.int(b.length)] = r.int(256);
      return b;
    case 1: // truncate
      return b.subarray(0, r.int(b.length + 1));
    case 2: // append garbage
      return Buffer.concat([b, r.bytes(1 + r.int(64))]);
    case 3: {
      // overwrite a 4-byte little-endian word (offsets and lengths) with an extreme value
      if (b.length >= 4) {
        const at = r.int(b.length - 3);
        new DataView(b.buffer, b.byteOffset).setUint32(
          at,
          [0, 1, 0xffffffff, b.length, 508, 512][r.int(6)] as number,
          true,
        );
      }
      return b;
    }
    default: // insert bytes in the middle
      return Buffer.concat([
        b.subarray(0, r.int(b.length + 1)),
        r.bytes(1 + r.int(8)),
        b.subarray(r.int(b.length + 1)),
      ]);
  }
}

export interface FuzzResult {
  messages: number;
  crashes: number;
  firstCrash?: string;
  accepted: number;
  ms: number;
}

export async function runP2PFuzz(count: number, seed = 1): Promise<FuzzResult> {
  const r = xorshiftRng(seed);
  const now = 1_000_000;
  const payload: ExecutionPayload = {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: new Uint8Array(32).fill(4),
    logsBloom: new Uint8Array(256),
    prevRandao: new Uint8Array(32).fill(6),
    blockNumber: 7n,
    gasLimit: 30_000_000n,
    gasUsed: 21_000n,
    timestamp: BigInt(now),
    extraData: new Uint8Array(0),
    baseFeePerGas: 1_000_000n,
    blockHash: new Uint8Array(32),
    transactions: [r.bytes(120), r.bytes(40)],
    withdrawals: [],
    blobGasUsed: 0n,
    excessBlobGas: 0n,
    withdrawalsRoot: new Uint8Array(32).fill(0x77),
  };
  const root = new Uint8Array(32).fill(0x42);
  payload.blockHash = payloadBlockHash(payload, 4, root);
  const signed = await signGossipBlock(BENCH_CFG, new LocalSigner(BENCH_KEY), payload, root);
  const validMessage = snappyCompress(signed.message);
  const sszByVersion = ([1, 2, 3, 4] as const).map((v) => encodePayloadSsz(payload, v));
  const okResponse = encodeOkResponse(BENCH_CFG, { ref: undefined as never, payload, parentBeaconBlockRoot: root });
  const validator = new BlockValidator(
    BENCH_CFG,
    { timestampThresholdMs: 60_000 },
    { signer: () => BENCH_SIGNER, now: () => now * 1000 },
  );

  let crashes = 0;
  let accepted = 0;
  let firstCrash: string | undefined;
  const crash = (what: string, err: unknown) => {
    crashes++;
    firstCrash ??= `${what}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  };
  const expected = (err: unknown) => err instanceof TernError;
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const kind = r.int(8);
    try {
      if (kind <= 2) {
        const data =
          kind === 0
            ? r.bytes(r.int(600))
            : kind === 1
              ? mutate(r, validMessage)
              : snappyCompress(mutate(r, signed.message));
        const v = (1 + r.int(4)) as BlockVersion;
        if (validator.validate(v, data).result === 'accept') accepted++;
      } else if (kind <= 4) {
        const v = (1 + r.int(4)) as BlockVersion;
        try {
          const p = decodePayloadSsz(mutate(r, sszByVersion[v - 1] as Uint8Array), v);
          payloadBlockHash(p, v, v >= 3 ? root : undefined);
        } catch (err) {
          if (!expected(err)) throw err;
        }
      } else if (kind <= 6) {
        try {
          decodeResponse(BENCH_CFG, 7n, kind === 5 ? mutate(r, okResponse) : r.bytes(r.int(200)));
        } catch (err) {
          if (!expected(err)) throw err;
        }
      } else {
        try {
          if (r.int(2) === 0) decodeRequest(r.bytes(r.int(12)));
          else snappyFrameDecode(mutate(r, okResponse.subarray(5)), 1 << 20);
        } catch (err) {
          if (!expected(err)) throw err;
        }
      }
    } catch (err) {
      crash(`message ${i} (kind ${kind})`, err);
    }
  }
  return { messages: count, crashes, accepted, ms: performance.now() - start, ...(firstCrash ? { firstCrash } : {}) };
}

// `node dist/bench/fuzz/p2p.js [count] [seed]`
if (process.argv[1]?.endsWith('/fuzz/p2p.js')) {
  const count = Number(process.argv[2] ?? 1_000_000);
  const seed = Number(process.argv[3] ?? Date.now() % 0xffffffff);
  const res = await runP2PFuzz(count, seed);
  process.stdout.write(`${JSON.stringify({ seed, ...res })}\n`);
  if (res.crashes > 0) process.exitCode = 1;
}
