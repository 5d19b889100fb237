// A fuzz harness for tern-exec's devp2p input paths: random and mutated eth/68 messages of every code through a
// live EthSession (STATUS first, then requests, replies to requests in flight, gossip), random and mutated snap/1
// messages through a SnapSession, and the decoders and the shallow RLP splitter directly. A crash is an exception
// the code does not mean to throw: the sessions must never throw and may drop a peer only for a protocol error
// (never for an "internal" one); the decoders may only throw PeerProtocolError, the splitter only RlpShapeError.
// `npm run fuzz:devp2p` runs 1,000,000 messages; the unit test runs a 10,000-message subset with the same code.

import type { ServeSource } from '../../src/main/exec/p2p/ethServe.js';
import { type EthContext, EthSession, type WirePeer } from '../../src/main/exec/p2p/ethSession.js';
import {
  decodeGetBlockHeaders,
  decodeHashesRequest,
  decodePooledHashes,
  decodeRawReply,
  decodeReceiptsReply,
  decodeStatus,
  decodeTransactions,
  EthCode,
  encodeGetBlockHeaders,
  encodeHashesRequest,
  encodePooledHashes,
  encodeReply,
  encodeStatus,
  PeerProtocolError,
  type Status,
} from '../../src/main/exec/p2p/ethWire.js';
import { RlpShapeError, splitList } from '../../src/main/exec/p2p/rlpShallow.js';
import { SnapSession } from '../../src/main/exec/p2p/snapSession.js';
import { keccak256 } from '../../src/main/native/keccak.js';
import { rlpEncode } from '../../src/main/primitives/rlp.js';
import { type Rng, xorshiftRng } from '../rng.js';

function mutate(r: Rng, input: Uint8Array): Uint8Array {
  const b = input.slice();
  switch (r.int(5)) {
    case 0:
      for (let i = 0, n = 1 + r.int(4); i < n && b.length > 0; i++) b[r.int(b.length)] = r.int(256);
      return b;
    case 1:
      return b.subarray(0, r.int(b.length + 1));
    case 2:
      return Buffer.concat([b, r.bytes(1 + r.int(16))]);
    case 3: {
      // an RLP length prefix replaced by an extreme one
      if (b.length > 0) b[r.int(b.length)] = [0xb8, 0xbf, 0xf8, 0xff, 0x80, 0xc0][r.int(6)] as number;
      return b;
    }
    default:
      return r.bytes(r.int(80));
  }
}

// A small chain to serve from: 8 headers, bodies and receipts lists.
const HEADERS = Array.from({ length: 8 }, (_, i) => rlpEncode([i, new Uint8Array(20).fill(i)]));
const HASHES = HEADERS.map((h) => keccak256(h));
const INDEX = new Map(HASHES.map((h, i) => [Buffer.from(h).toString('hex'), i]));
const serve: ServeSource = {
  headerNumber: (h) => INDEX.get(Buffer.from(h).toString('hex')),
  canonicalHash: (n) => HASHES[n],
  headerRlp: (n) => HEADERS[n],
  bodyRlp: (n) => rlpEncode([[], [], [n]]),
  receiptsRlp: () => rlpEncode([Uint8Array.of(0x02, 0xc0)]),
  pooledTx: () => undefined,
};
const GENESIS = HASHES[0] as Uint8Array;
const STATUS: Status = {
  version: 68,
  networkId: 901n,
  td: 0n,
  head: HASHES[7] as Uint8Array,
  genesis: GENESIS,
  forkId: { hash: Uint8Array.of(1, 2, 3, 4), next: 0n },
};

/** Valid messages of every kind, the seeds mutation starts from. */
const CORPUS: Array<[number, Uint8Array]> = [
  [EthCode.Status, encodeStatus(STATUS)],
  [EthCode.GetBlockHeaders, encodeGetBlockHeaders({ requestId: 7n, origin: 2n, amount: 3n, skip: 1n, reverse: false })],
  [
    EthCode.GetBlockHeaders,
    encodeGetBlockHeaders({ requestId: 8n, origin: GENESIS, amount: 5n, skip: 0n, reverse: true }),
  ],
  [EthCode.GetBlockBodies, encodeHashesRequest(9n, HASHES.slice(0, 3))],
  [EthCode.GetReceipts, encodeHashesRequest(10n, HASHES.slice(2, 5))],
  [EthCode.GetPooledTransactions, encodeHashesRequest(11n, [new Uint8Array(32)])],
  [EthCode.BlockHeaders, encodeReply(1n, HEADERS.slice(0, 2))],
  [EthCode.BlockBodies, encodeReply(1n, [rlpEncode([[], []])])],
  [EthCode.Receipts, encodeReply(1n, [rlpEncode([Uint8Array.of(0x02, 0xc0)])])],
  [EthCode.PooledTransactions, encodeReply(1n, [rlpEncode([1, 2, 3])])],
  [EthCode.Transactions, rlpEncode([Uint8Array.of(0x02, 0xc1, 0x01), [1, 2]])],
  [
    EthCode.NewPooledTransactionHashes,
    encodePooledHashes({ types: Uint8Array.of(2), sizes: [100], hashes: [new Uint8Array(32).fill(3)] }),
  ],
];

export interface DevP2pFuzzResult {
  messages: number;
  crashes: number;
  /** Messages a session took without dropping the peer (the harness reaches past the first check). */
  accepted: number;
  ms: number;
  firstCrash?: string;
}

const expectedDecodeError = (err: unknown) => err instanceof PeerProtocolError;

export async function runDevP2pFuzz(count: number, seed = 1): Promise<DevP2pFuzzResult> {
  const r = xorshiftRng(seed);
  const start = performance.now();
  let crashes = 0;
  let accepted = 0;
  let firstCrash: string | undefined;
  const crash = (where: string, err: unknown) => {
    crashes++;
    firstCrash ??= `${where}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  };

  const last: { dropped: string | undefined } = { dropped: undefined };
  const wire: WirePeer = {
    getId: () => new Uint8Array(64).fill(1),
    getHelloMessage: () => ({ protocolVersion: 4 }),
    disconnect: () => undefined,
  };
  const ctx: EthContext = {
    status: () => STATUS,
    checkForkId: (id) => (id.hash.length === 4 && id.hash[0] === 1 ? 'ok' : 'local-incompatible-or-stale'),
    serve,
    txGossip: true,
    addRemoteTx: () => undefined,
    knownTx: () => false,
    requestTimeoutMs: 60_000,
    handshakeTimeoutMs: 60_000,
    onReady: () => undefined,
    onDrop: (_s, reason) => {
      last.dropped = reason;
    },
  };
  const fresh = (): EthSession => {
    const s = new EthSession(ctx, 68, wire, () => undefined);
    s._handleMessage(EthCode.Status, encodeStatus(STATUS));
    return s;
  };
  let session = fresh();
  const snap = new SnapSession(
    {
      server: { serve: async (code, payload) => ({ code: code + 1, payload }) },
      requestTimeoutMs: 60_000,
      onProtocolError: () => undefined,
    },
    1,
    wire,
    () => undefined,
  );

  for (let i = 0; i < count; i++) {
    if (i % 2000 === 0) await new Promise((res) => setImmediate(res));
    const kind = r.int(4);
    try {
      if (kind <= 1) {
        // A session message: a corpus message (mutated three times in four) under its code or another.
        const [code0, msg] = CORPUS[r.int(CORPUS.length)] as [number, Uint8Array];
        const code = r.int(8) === 0 ? r.int(20) : code0;
        const payload = r.int(4) === 0 ? msg : mutate(r, msg);
        // A reply needs a request in flight to be matched against: start one now and then.
        if (r.int(3) === 0) {
          session.getBlockHeaders({ origin: 1n, amount: 4, skip: 0, reverse: false }).catch(() => undefined);
        }
        last.dropped = undefined;
        session._handleMessage(code, payload);
        const reason = last.dropped as string | undefined;
        if (reason === undefined) accepted++;
        else {
          if (reason.startsWith('internal')) throw new Error(`peer dropped for ${reason}`);
          session = fresh();
        }
      } else if (kind === 2) {
        const payload = mutate(r, encodeHashesRequest(BigInt(r.int(1000)), HASHES.slice(0, r.int(4))));
        snap._handleMessage(r.int(10), payload);
      } else {
        const [, msg] = CORPUS[r.int(CORPUS.length)] as [number, Uint8Array];
        const input = mutate(r, msg);
        const decoders = [
          () => decodeStatus(input),
          () => decodeGetBlockHeaders(input),
          () => decodeHashesRequest(input, 'GetBlockBodies', 1024),
          () => decodeRawReply(input, 'reply'),
          () => decodeReceiptsReply(input),
          () => decodePooledHashes(input),
          () => decodeTransactions(input),
        ];
        try {
          (decoders[r.int(decoders.length)] as () => unknown)();
        } catch (err) {
          if (!expectedDecodeError(err)) throw err;
        }
        try {
          splitList(input);
        } catch (err) {
          if (!(err instanceof RlpShapeError)) throw err;
        }
      }
    } catch (err) {
      crash(`message ${i} (kind ${kind})`, err);
    }
  }
  session.close();
  snap.close();
  return { messages: count, crashes, accepted, ms: performance.now() - start, ...(firstCrash ? { firstCrash } : {}) };
}

// `node dist/bench/fuzz/devp2p.js [count] [seed]`
if (process.argv[1]?.endsWith('/fuzz/devp2p.js')) {
  const count = Number(process.argv[2] ?? 1_000_000);
  const seed = Number(process.argv[3] ?? Date.now() % 0xffffffff);
  const res = await runDevP2pFuzz(count, seed);
  process.stdout.write(`${JSON.stringify({ seed, ...res })}\n`);
  if (res.crashes > 0) process.exitCode = 1;
}
