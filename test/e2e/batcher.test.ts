// tern-batcher as a process against anvil as L1 (blobs included), a fake sequencer execution client serving L2
// blocks whose L1-info deposits point at anvil's blocks, and a fake rollup node. The batcher posts; the test reads
// the batch inbox transactions back out of anvil (calldata, or blobs through anvil_getBlobsByTransactionHash) and
// decodes them with the derivation's decoders, comparing with the L2 blocks served.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RpcClient } from '../../src/main/common/rpc/client.js';
import { decodeBlobData } from '../../src/main/protocol/blob/blobData.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort } from '../helpers/processes.js';
import { decodeBatches } from '../unit/main/batcher/decodeBatches.js';
import { type Epoch, fakeL2Chain, L2_CHAIN_ID, userTxsOf } from '../unit/main/batcher/l2Fixtures.js';

const ANVIL = join(ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');
const BIN = join(ROOT, 'bin/tern-batcher.js');
// anvil's first dev account.
const BATCHER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const BATCHER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const INBOX = '0xff00000000000000000000000000000000000901';
const BLOCK_TIME = 2;
const hexBytes = (h: string) => Uint8Array.from(Buffer.from(h.slice(2), 'hex'));

function rpcServer(handle: (method: string, params: unknown[]) => unknown): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const one = (m: { id: unknown; method: string; params?: unknown[] }) => {
        try {
          return { jsonrpc: '2.0', id: m.id, result: handle(m.method, m.params ?? []) ?? null };
        } catch (err) {
          return { jsonrpc: '2.0', id: m.id, error: { code: -32000, message: (err as Error).message } };
        }
      };
      const msg = JSON.parse(body);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(msg) ? msg.map(one) : one(msg)));
    });
  });
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () =>
      r({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

interface Setup {
  anvil: ChildProcess;
  l1: RpcClient;
  l1Url: string;
}

async function startAnvil(): Promise<Setup> {
  const port = await freePort();
  const anvil = spawn(ANVIL, ['--port', String(port), '--hardfork', 'prague', '--block-time', '1', '--silent'], {
    stdio: 'ignore',
  });
  const l1Url = `http://127.0.0.1:${port}`;
  const l1 = new RpcClient({ url: l1Url, timeoutMs: 5000 });
  for (let i = 0; ; i++) {
    try {
      if (Number(await l1.call<string>('eth_blockNumber')) >= 3) break;
    } catch (err) {
      if (i > 100) throw err;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { anvil, l1, l1Url };
}

async function runCase(mode: 'calldata' | 'blobs', batchType: 0 | 1, admin = false, reorg = false) {
  const { anvil, l1, l1Url } = await startAnvil();
  const servers: Server[] = [];
  let batcher: ChildProcess | undefined;
  try {
    const epochs: Epoch[] = [];
    for (let n = 0; n <= 3; n++) {
      const b = await l1.call<Record<string, string>>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
      epochs.push({ number: n, hash: String(b.hash), time: Number(b.timestamp) });
    }
    const genesisTime = (epochs[0] as Epoch).time;
    const genesisHash = `0x${'77'.repeat(32)}`;
    const blocks = await fakeL2Chain({
      count: 12,
      first: 1,
      parentHash: genesisHash,
      timestamp0: genesisTime + BLOCK_TIME,
      blockTime: BLOCK_TIME,
      epochOf: (i) => epochs[Math.floor(i / 4)] as Epoch,
      txs: (i) => i % 3,
      dataBytes: mode === 'blobs' ? 2000 : 100,
      seed: `${mode}${batchType}`,
    });
    const l2 = await rpcServer((method, params) => {
      if (method !== 'eth_getBlockByNumber') throw new Error(`unexpected ${method}`);
      return blocks[Number(params[0]) - 1] ?? null;
    });
    const last = blocks[blocks.length - 1] as Record<string, string>;
    const ref = (b: Record<string, string>) => ({ hash: b.hash, number: Number(b.number) });
    const rollupConfig = {
      genesis: {
        l1: { hash: (epochs[0] as Epoch).hash, number: 0 },
        l2: { hash: genesisHash, number: 0 },
        l2_time: genesisTime,
        system_config: {
          batcherAddr: BATCHER,
          overhead: `0x${'00'.repeat(32)}`,
          scalar: `0x${'00'.repeat(31)}01`,
          gasLimit: 30_000_000,
        },
      },
      block_time: BLOCK_TIME,
      max_sequencer_drift: 600,
      seq_window_size: 3600,
      channel_timeout: 300,
      l1_chain_id: 31337,
      l2_chain_id: Number(L2_CHAIN_ID),
      regolith_time: 0,
      canyon_time: 0,
      delta_time: 0,
      ecotone_time: 0,
      fjord_time: 0,
      granite_time: 0,
      holocene_time: 0,
      batch_inbox_address: INBOX,
      deposit_contract_address: '0x0000000000000000000000000000000000000001',
      l1_system_config_address: '0x0000000000000000000000000000000000000002',
    };
    const rollup = await rpcServer((method) => {
      if (method === 'optimism_rollupConfig') return rollupConfig;
      if (method === 'optimism_syncStatus') return { safe_l2: { hash: genesisHash, number: 0 }, unsafe_l2: ref(last) };
      throw new Error(`unexpected ${method}`);
    });
    servers.push(l2.server, rollup.server);

    const adminPort = await freePort();
    const adminArgs = admin
      ? ['--stopped', '--rpc.enable-admin', '--rpc.addr=127.0.0.1', `--rpc.port=${adminPort}`]
      : [];
    const env = cleanEnv();
    batcher = spawn(
      process.execPath,
      [
        BIN,
        `--l1-eth-rpc=${l1Url}`,
        `--l2-eth-rpc=${l2.url}`,
        `--rollup-rpc=${rollup.url}`,
        `--private-key=${BATCHER_KEY}`,
        `--data-availability-type=${mode}`,
        `--batch-type=${batchType}`,
        '--max-channel-duration=2',
        '--num-confirmations=1',
        '--poll-interval=200ms',
        '--txmgr.receipt-query-interval=200ms',
        '--resubmission-timeout=10s',
        `--compression-algo=${batchType === 1 ? 'brotli' : 'zlib'}`,
        '--max-l1-tx-size-bytes=1000',
        '--target-num-frames=2',
        '--log.level=debug',
        ...adminArgs,
      ],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    batcher.stdout?.on('data', (d) => {
      output += d;
    });
    batcher.stderr?.on('data', (d) => {
      output += d;
    });

    if (admin) {
      // Started stopped: nothing is posted until admin_startBatcher.
      const rpc = new RpcClient({ url: `http://127.0.0.1:${adminPort}`, timeoutMs: 2000 });
      let active: boolean | undefined;
      for (let i = 0; i < 100 && active === undefined; i++) {
        active = await rpc.call<boolean>('admin_batcherActive').catch(() => undefined);
        if (active === undefined) await new Promise((r) => setTimeout(r, 200));
      }
      expect(active, output).toBe(false);
      await new Promise((r) => setTimeout(r, 1500));
      expect(output).not.toMatch(/Published batcher transaction/);
      await rpc.call('admin_startBatcher');
      expect(await rpc.call('admin_batcherActive')).toBe(true);
      await rpc.close();
    }
    let payloads: Uint8Array[] = [];
    let txTypes = new Set<string>();
    let scanned = 0;
    /** The L1 blocks holding batcher transactions, as scanned. */
    let inclusions: { number: number; hash: string }[] = [];
    let deadline = Date.now() + 60_000;
    let decoded: Awaited<ReturnType<typeof decodeBatches>> = [];
    const scan = async () => {
      while (Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500));
        const head = Number(await l1.call<string>('eth_blockNumber'));
        for (let n = scanned + 1; n <= head; n++) {
          const b = await l1.call<{ hash: string; transactions: Record<string, string>[] }>('eth_getBlockByNumber', [
            `0x${n.toString(16)}`,
            true,
          ]);
          for (const tx of b.transactions) {
            if (tx.to?.toLowerCase() !== INBOX || tx.from?.toLowerCase() !== BATCHER) continue;
            txTypes.add(tx.type as string);
            if (inclusions.at(-1)?.number !== n) inclusions.push({ number: n, hash: b.hash });
            if (tx.type === '0x3') {
              const blobs = await l1.call<string[]>('anvil_getBlobsByTransactionHash', [tx.hash]);
              for (const blob of blobs) payloads.push(decodeBlobData(hexBytes(blob)));
            } else {
              payloads.push(hexBytes(tx.input as string));
            }
          }
        }
        scanned = head;
        try {
          decoded = await decodeBatches(payloads, { blockTime: BLOCK_TIME, genesisTime, chainId: L2_CHAIN_ID });
        } catch {
          continue; // a channel not closed yet
        }
        if (decoded.length >= blocks.length) break;
      }
    };
    await scan();
    if (reorg) {
      // Every batch is on L1 with its one confirmation. Reorg L1 from the block of the first batcher transaction
      // on: anvil replaces those blocks with empty ones, and the batcher must notice and post everything again.
      expect(decoded.length, output).toBe(blocks.length);
      const first = inclusions[0] as { number: number; hash: string };
      const head = Number(await l1.call<string>('eth_blockNumber'));
      await l1.call('anvil_reorg', [head - first.number + 1, []]);
      const now = await l1.call<{ hash: string }>('eth_getBlockByNumber', [`0x${first.number.toString(16)}`, false]);
      expect(now.hash).not.toBe(first.hash);
      payloads = [];
      txTypes = new Set();
      inclusions = [];
      decoded = [];
      scanned = first.number - 1;
      deadline = Date.now() + 60_000;
      await scan();
      expect(output).toMatch(/reorged out of L1, resubmitting/);
      expect(inclusions[0]?.number ?? 0, output).toBeGreaterThan(head);
    }
    expect(decoded.length, output).toBe(blocks.length);
    expect(decoded.map((d) => d.timestamp)).toEqual(blocks.map((b) => Number(b.timestamp)));
    expect(decoded.map((d) => d.txHashes)).toEqual(blocks.map(userTxsOf));
    expect(decoded.map((d) => d.epochNum)).toEqual(blocks.map((_, i) => Math.floor(i / 4)));
    expect(new Set(decoded.map((d) => d.batchType))).toEqual(new Set([batchType]));
    if (batchType === 0) expect(decoded.map((d) => d.parentHash)).toEqual(blocks.map((b) => b.parentHash));
    expect([...txTypes]).toEqual([mode === 'blobs' ? '0x3' : '0x2']);
    return { output };
  } finally {
    batcher?.kill('SIGTERM');
    anvil.kill('SIGTERM');
    for (const s of servers) s.close();
  }
}

describe('tern-batcher command line', () => {
  const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 30_000 });

  it('--help and --version exit 0', () => {
    const help = run(['--help']);
    expect(help.status).toBe(0);
    for (const flag of ['--l1-eth-rpc', '--data-availability-type', '--compressor', '--resubmission-timeout']) {
      expect(help.stdout).toContain(flag);
    }
    expect(run(['--version']).stdout).toMatch(/^tern-batcher version /);
  });

  it('bad flags exit 2 with one line', () => {
    for (const args of [['--bogus'], ['--l1-eth-rpc=http://a'], ['--batch-type=2'], ['--data-availability-type=x']]) {
      const r = run(args);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.split('\n')[0]).toMatch(/^tern-batcher: /);
    }
  });
});

describe('tern-batcher against anvil', () => {
  it('posts singular batches as calldata frames that decode back to the L2 blocks (started over the admin API)', async () => {
    await runCase('calldata', 0, true);
  }, 90_000);

  it('posts span batches (brotli) in blobs that decode back to the L2 blocks', async () => {
    await runCase('blobs', 1);
  }, 90_000);

  it('posts the batches again after L1 reorgs them out past their confirmations (anvil_reorg)', async () => {
    await runCase('calldata', 1, false, true);
  }, 150_000);
});
