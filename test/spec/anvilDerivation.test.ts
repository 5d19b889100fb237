// Derivation against a real, third-party layer 1: anvil (Prague) with a calldata batcher transaction and a blob
// batcher transaction we post ourselves (frames built with ChannelOut, blob commitments and proofs from c-kzg),
// read back through the real L1Client (verifying every block, transaction and receipt root) and BeaconClient, then
// run through the DerivationPipeline. The derived attributes must carry exactly the posted transactions.
//
// anvil serves GET /eth/v1/beacon/genesis and /eth/v1/beacon/blobs/{id} (with a block number as id), but not
// /eth/v1/config/spec, which the beacon client reads SECONDS_PER_SLOT from. A small proxy in front of anvil answers
// that one request (12 seconds) and forwards everything else; blocks are mined 12 s apart from the genesis time so
// that the slot the beacon client computes is the block number anvil expects.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stageLogger } from '../../src/main/node/derive/frameQueue.js';
import { DerivationPipeline } from '../../src/main/node/derive/pipeline.js';
import { fromHex, toHex } from '../../src/main/node/derive/types.js';
import { BeaconClient } from '../../src/main/node/l1/beacon.js';
import { InlineBlobVerifier } from '../../src/main/node/l1/blobVerifierInline.js';
import { L1Client } from '../../src/main/node/l1/client.js';
import { decodeL1InfoCalldata } from '../../src/main/primitives/op/l1Info.js';
import { type RlpInput, rlpDecode, rlpEncode } from '../../src/main/primitives/rlp.js';
import { parseRollupConfig, type RollupConfig } from '../../src/main/primitives/rollup/config.js';
import { decodeDepositTx } from '../../src/main/primitives/tx/deposit/deposit.js';
import { encodeBlobData } from '../../src/main/protocol/blob/blobData.js';
import { rpc } from '../helpers/processes.js';
import {
  addressOf,
  batcherData,
  channelFrames,
  FakeL2,
  l2Hash,
  l2UserTx,
  privKey,
  signTx,
  singular,
  span,
} from '../unit/main/node/derive/l1Fake.js';

const ANVIL = 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil';
// anvil's first dev account (the well-known "test test … junk" mnemonic) posts batches; another account, funded
// with anvil_setBalance, posts to the inbox too and must be ignored.
const BATCHER = fromHex('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const OTHER = privKey(0x33);
const SLOT = 12;
const INBOX = `0x${'ff'.repeat(19)}01`;

interface CKzg {
  loadTrustedSetup(precompute: number): void;
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  computeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Uint8Array;
}
const ckzg = createRequire(import.meta.url)('c-kzg') as CKzg;

let anvil: ChildProcess | undefined;
let proxy: Server | undefined;
let rpcUrl = '';
let beaconUrl = '';

/** One JSON-RPC call to anvil. */
const call = <T = unknown>(method: string, params: unknown[] = []): Promise<T> => rpc<T>(rpcUrl, method, params);

async function startAnvil(): Promise<void> {
  for (let attempt = 0; attempt < 5 && anvil === undefined; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    const child = spawn(ANVIL, ['--port', String(port), '--hardfork', 'prague', '--no-mining', '--silent'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ok = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 20_000);
      const poll = async () => {
        try {
          rpcUrl = `http://127.0.0.1:${port}`;
          await call('eth_chainId');
          clearTimeout(timer);
          resolve(true);
        } catch {
          if (child.exitCode === null) setTimeout(poll, 200);
          else {
            clearTimeout(timer);
            resolve(false);
          }
        }
      };
      void poll();
    });
    if (ok) anvil = child;
    else child.kill();
  }
  if (anvil === undefined) throw new Error('anvil did not start');
  // The beacon API proxy: SECONDS_PER_SLOT here, the rest from anvil.
  proxy = createServer((req, res) => {
    if (req.url?.startsWith('/eth/v1/config/spec')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { SECONDS_PER_SLOT: String(SLOT) } }));
      return;
    }
    fetch(`${rpcUrl}${req.url ?? '/'}`)
      .then(async (r) => {
        res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await r.arrayBuffer()));
      })
      .catch((err: Error) => {
        res.writeHead(502);
        res.end(err.message);
      });
  });
  await new Promise<void>((resolve) => proxy?.listen(0, '127.0.0.1', resolve));
  beaconUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

interface RpcBlock {
  number: string;
  hash: string;
  timestamp: string;
  transactions: string[];
}

/** Mines one block at genesis + 12·number (so slot = number), with what is in the pool. */
async function mine(genesisTime: number): Promise<RpcBlock> {
  const head = await call<RpcBlock>('eth_getBlockByNumber', ['latest', false]);
  const next = Number(head.number) + 1;
  await call('evm_setNextBlockTimestamp', [genesisTime + SLOT * next]);
  await call('evm_mine');
  return call<RpcBlock>('eth_getBlockByNumber', ['latest', false]);
}

/** A blob transaction in its network form (with blobs, commitments and proofs), from a signed type-3 tx. */
function withSidecar(signed: Uint8Array, blobs: Uint8Array[], commitments: Uint8Array[], proofs: Uint8Array[]): string {
  const body = rlpDecode(signed.subarray(1)) as RlpInput[];
  const wrapped = rlpEncode([body, blobs, commitments, proofs]);
  const out = new Uint8Array(wrapped.length + 1);
  out[0] = 3;
  out.set(wrapped, 1);
  return toHex(out);
}

function rollupConfig(genesis: RpcBlock): RollupConfig {
  return parseRollupConfig({
    genesis: {
      l1: { hash: genesis.hash, number: 0 },
      l2: { hash: l2Hash(0, Number(genesis.timestamp)), number: 0 },
      l2_time: Number(genesis.timestamp),
      system_config: {
        batcherAddr: addressOf(BATCHER),
        overhead: `0x${'00'.repeat(32)}`,
        scalar: `0x01${'00'.repeat(23)}0000000100000002`,
        gasLimit: 30_000_000,
      },
    },
    block_time: 2,
    seq_window_size: 100,
    channel_timeout: 50,
    l1_chain_id: 31337,
    l2_chain_id: 901,
    regolith_time: 0,
    canyon_time: 0,
    delta_time: 0,
    ecotone_time: 0,
    fjord_time: 0,
    granite_time: 0,
    holocene_time: 0,
    batch_inbox_address: INBOX,
    deposit_contract_address: `0x${'de'.repeat(20)}`,
    l1_system_config_address: `0x${'5c'.repeat(20)}`,
  });
}

beforeAll(async () => {
  try {
    ckzg.loadTrustedSetup(0);
  } catch (err) {
    if (!/already loaded/i.test((err as Error).message)) throw err;
  }
  await startAnvil();
}, 60_000);

afterAll(async () => {
  anvil?.kill();
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
});

describe('derivation from anvil', () => {
  it('derives exactly the transactions of a calldata and a blob batcher transaction', async () => {
    const genesis = await call<RpcBlock>('eth_getBlockByNumber', ['0x0', false]);
    const g = Number(genesis.timestamp);
    const beaconGenesis = (await (await fetch(`${beaconUrl}/eth/v1/beacon/genesis`)).json()) as {
      data: { genesis_time: string };
    };
    expect(Number(beaconGenesis.data.genesis_time)).toBe(g);
    const cfg = rollupConfig(genesis);
    const user = privKey(7);
    const txsOf = (n: number) =>
      n % 2 === 0 ? [l2UserTx(cfg, user, n)] : [l2UserTx(cfg, user, 100 + n, 0), l2UserTx(cfg, user, 200 + n)];
    const batch = (n: number) => ({
      parentHash: fromHex(l2Hash(n - 1, g + 2 * (n - 1))),
      epochNum: 0,
      epochHash: fromHex(genesis.hash),
      timestamp: g + 2 * n,
      transactions: txsOf(n),
    });

    // L1 block 1: a span batch (L2 blocks 1-3) in calldata, plus an inbox transaction from someone else.
    const calldata = batcherData(channelFrames([span(cfg, [1, 2, 3].map(batch), 0)], { compression: 'brotli' }));
    const fees = { chainId: 31337n, to: INBOX, gas: 300_000n };
    await call('anvil_setBalance', [addressOf(OTHER), '0x56bc75e2d63100000']);
    await call('eth_sendRawTransaction', [toHex(signTx(OTHER, { ...fees, data: calldata, nonce: 0n }))]);
    await call('eth_sendRawTransaction', [toHex(signTx(BATCHER, { ...fees, data: calldata, nonce: 0n }))]);
    const b1 = await mine(g);
    expect(b1.transactions.length).toBe(2);

    // L1 block 2: singular batches (L2 blocks 4-6) in a blob, zlib.
    const blob = encodeBlobData(batcherData(channelFrames([4, 5, 6].map((n) => singular(batch(n))))));
    const commitment = ckzg.blobToKzgCommitment(blob);
    const proof = ckzg.computeBlobKzgProof(blob, commitment);
    const vh = createHash('sha256').update(commitment).digest();
    vh[0] = 1;
    const blobTx = signTx(BATCHER, { ...fees, type: 3, nonce: 1n, blobHashes: [toHex(vh)] });
    await call('eth_sendRawTransaction', [withSidecar(blobTx, [blob], [commitment], [proof])]);
    const b2 = await mine(g);
    expect(b2.transactions.length).toBe(1);
    await mine(g);

    const logger = stageLogger({}, 'anvil');
    const client = (trustRpc: boolean) =>
      new L1Client(
        {
          url: rpcUrl,
          rpcKind: 'standard',
          trustRpc,
          maxBatchSize: 20,
          maxConcurrency: 4,
          rateLimit: 0,
          cacheSize: 100,
        },
        { logger },
      );
    // Verified reads: the calldata block checks out. anvil (1.7.1) computes the transactions root of a block with a
    // blob transaction over the transaction's network form (blobs, commitments and proofs included), not its
    // consensus form, so a verifying client rightly rejects that block; derivation below trusts the RPC.
    const verifying = client(false);
    expect((await verifying.infoAndTxsByHash(b1.hash as `0x${string}`)).txs.length).toBe(2);
    await expect(verifying.infoAndTxsByHash(b2.hash as `0x${string}`)).rejects.toMatchObject({
      code: 'L1_BLOCK_INVALID',
    });
    const l1 = client(true);
    const beacon = new BeaconClient({ url: beaconUrl }, { logger, verifier: new InlineBlobVerifier() });
    const l2 = new FakeL2(cfg);
    const p = new DerivationPipeline(cfg, { l1, blobs: beacon, l2 }, {});
    await p.reset(l2.head);
    for (let guard = 0; guard < 200; guard++) {
      const r = await p.step(l2.head);
      if (r.kind === 'attributes') l2.accept(r.attributes);
      if (r.kind === 'eof') break;
    }
    expect(p.origin()?.number).toBe(3);
    expect(l2.head.number).toBe(6);
    for (let n = 1; n <= 6; n++) {
      const a = l2.blocks[n]?.attributes;
      if (a === undefined) throw new Error(`L2 block ${n} missing`);
      expect(a.timestamp).toBe(g + 2 * n);
      const info = decodeL1InfoCalldata(decodeDepositTx(a.transactions[0] as Uint8Array).data);
      expect(toHex(info.blockHash)).toBe(genesis.hash);
      expect(info.sequenceNumber).toBe(BigInt(n)); // epoch 0 is the L2 genesis origin too
      expect(a.transactions.slice(1).map(toHex)).toEqual(txsOf(n).map(toHex));
    }
  }, 180_000);
});
