// `tern-exec --dev` driven by real clients, as a developer uses it: cast (transfers of each transaction type, a
// contract deployment and its logs, a blob transaction from a file) and viem (the unlocked dev account through
// eth_sendTransaction, newHeads over WebSocket, a blob transaction with c-kzg), then the blob sidecar fetched
// from the dev chain's beacon API and checked against the transaction's versioned hash.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createPublicClient,
  createWalletClient,
  defineKzg,
  type Hex,
  http,
  type PublicClient,
  toBlobs,
  webSocket,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load as loadCKzg } from '../../src/main/protocol/crypto/kzg.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort } from '../helpers/processes.js';

const BIN = join(ROOT, 'bin/tern-exec.js');
const CAST = join(ROOT, 'node_modules/@foundry-rs/cast-linux-amd64/bin/cast');
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'tern-dev-e2e-'));
const TO = '0x1111111111111111111111111111111111111111';
// A contract whose every call logs its calldata under topic 0x2a: initcode copying 13 bytes of runtime
// (CALLDATACOPY to memory, LOG1(0, calldatasize, 0x2a), STOP).
const RUNTIME = '366000600037602a366000a100';
const INITCODE = `0x600d80600b6000396000f3${RUNTIME}`;
const TOPIC = `0x${'2a'.padStart(64, '0')}`;

let node: ChildProcess;
let logs = '';
let rpc: string;
let wsUrl: string;
let beaconUrl: string;
let key: Hex;
let dev: Hex;
let client: PublicClient;

async function cast(...args: string[]): Promise<string> {
  const { stdout } = await run(CAST, args, { timeout: 60_000, env: { ...process.env, ETH_RPC_URL: rpc } });
  return stdout.trim();
}

const castSend = async (...args: string[]) =>
  JSON.parse(await cast('send', '--private-key', key, '--json', ...args)) as Record<string, unknown>;

beforeAll(async () => {
  const [httpPort, wsPort, authPort, beaconPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  rpc = `http://127.0.0.1:${httpPort}`;
  wsUrl = `ws://127.0.0.1:${wsPort}`;
  const env = cleanEnv();
  node = spawn(
    process.execPath,
    [
      BIN,
      '--dev',
      '--http',
      '--http.port',
      String(httpPort),
      '--http.api',
      'eth,net,web3,txpool',
      '--ws',
      '--ws.port',
      String(wsPort),
      '--ws.api',
      'eth,net,web3',
      '--authrpc.port',
      String(authPort),
      '--dev.beacon.port',
      String(beaconPort),
      '--ipcdisable',
      '--log.format',
      'logfmt',
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  node.stdout?.on('data', (d) => {
    logs += String(d);
  });
  node.stderr?.on('data', (d) => {
    logs += String(d);
  });
  for (let i = 0; i < 300 && !logs.includes('Sealing blocks'); i++) await new Promise((r) => setTimeout(r, 100));
  key = /privateKey=(0x[0-9a-f]{64})/.exec(logs)?.[1] as Hex;
  dev = /address=(0x[0-9a-f]{40})/.exec(logs.slice(logs.indexOf('Developer account')))?.[1] as Hex;
  beaconUrl = /Beacon API listening.*url=(\S+)/.exec(logs)?.[1] as string;
  if (!key || !dev || !beaconUrl) throw new Error(`tern-exec --dev did not start:\n${logs}`);
  client = createPublicClient({ transport: http(rpc) }) as PublicClient;
}, 60_000);

afterAll(async () => {
  if (node && node.exitCode === null) {
    node.kill('SIGTERM');
    await new Promise((r) => node.once('exit', r));
  }
  rmSync(work, { recursive: true, force: true });
});

describe('tern-exec --dev with cast', () => {
  it('prints a funded developer key and serves chain 1337', async () => {
    expect(privateKeyToAccount(key).address.toLowerCase()).toBe(dev);
    expect(await client.getChainId()).toBe(1337);
    expect(await client.getBalance({ address: dev })).toBeGreaterThan(10n ** 30n);
    expect(await cast('block-number')).toBe('0');
    expect(await cast('chain-id')).toBe('1337');
  });

  it('seals EIP-1559, legacy, access-list and set-code transactions as they arrive', async () => {
    const r1559 = await castSend(TO, '--value', '1000');
    expect(r1559.status).toBe('0x1');
    expect(r1559.type).toBe('0x2');
    expect(Number(await cast('block-number'))).toBeGreaterThanOrEqual(1);

    const legacy = await castSend('--legacy', TO, '--value', '1');
    expect(legacy.type).toBe('0x0');
    const accessList = JSON.stringify([{ address: TO, storageKeys: [`0x${'00'.repeat(32)}`] }]);
    // With --legacy the access list makes an EIP-2930 transaction; without, an EIP-1559 one carrying it.
    const al = await castSend('--legacy', '--access-list', accessList, TO);
    expect(al.type).toBe('0x1');
    expect(al.status).toBe('0x1');
    const al1559 = await castSend('--access-list', accessList, TO);
    expect(al1559.type).toBe('0x2');
    const withList = await client.getTransaction({ hash: al1559.transactionHash as Hex });
    expect(withList.accessList?.[0]?.address).toBe(TO);

    // EIP-7702: the developer delegates its own account to a contract address (cast signs the authorization).
    const delegate = `0x${'33'.repeat(20)}`;
    const setCode = await castSend('--auth', delegate, TO);
    expect(setCode.type).toBe('0x4');
    expect(setCode.status).toBe('0x1');
    expect(await cast('code', dev)).toBe(`0xef0100${delegate.slice(2)}`);

    const receipt = JSON.parse(await cast('receipt', '--json', r1559.transactionHash as string)) as Record<
      string,
      string
    >;
    expect(receipt.blockHash).toBe(r1559.blockHash);
    expect(receipt.gasUsed).toBe('0x5208');
  });

  it('deploys a contract and reads its logs', async () => {
    const created = await castSend('--create', INITCODE);
    expect(created.status).toBe('0x1');
    const address = created.contractAddress as string;
    expect(await cast('code', address)).toBe(`0x${RUNTIME}`);
    const called = await castSend(address, '0xdeadbeef');
    const logs = called.logs as { address: string; topics: string[]; data: string }[];
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ address: address.toLowerCase(), topics: [TOPIC], data: '0xdeadbeef' });
    const found = JSON.parse(await cast('logs', '--json', '--from-block', '0', '--address', address)) as {
      data: string;
    }[];
    expect(found.map((l) => l.data)).toEqual(['0xdeadbeef']);
  });

  it('takes a blob transaction and serves its sidecar at the beacon API', async () => {
    const file = join(work, 'blob.txt');
    writeFileSync(file, 'blob data for the tern dev chain');
    const r = await castSend('--blob', '--eip4844', '--path', file, TO);
    expect(r.type).toBe('0x3');
    expect(r.status).toBe('0x1');
    const tx = await client.getTransaction({ hash: r.transactionHash as Hex });
    const block = await client.getBlock({ blockHash: r.blockHash as Hex });
    expect(block.blobGasUsed).toBe(131_072n);
    await expectSidecar(block.timestamp, tx.blobVersionedHashes?.[0] as Hex);
  });
});

/** Fetches the sidecars of the block at `timestamp` and checks one has the versioned hash. */
async function expectSidecar(timestamp: bigint, versionedHash: Hex): Promise<void> {
  const genesis = (await (await fetch(`${beaconUrl}/eth/v1/beacon/genesis`)).json()) as {
    data: { genesis_time: string };
  };
  const spec = (await (await fetch(`${beaconUrl}/eth/v1/config/spec`)).json()) as {
    data: { SECONDS_PER_SLOT: string };
  };
  const offset = timestamp - BigInt(genesis.data.genesis_time);
  const perSlot = BigInt(spec.data.SECONDS_PER_SLOT);
  expect(offset % perSlot).toBe(0n);
  const res = await fetch(`${beaconUrl}/eth/v1/beacon/blob_sidecars/${offset / perSlot}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: { kzg_commitment: string; blob: string }[] };
  const hashes = body.data.map((s) => {
    const h = createHash('sha256')
      .update(Buffer.from(s.kzg_commitment.slice(2), 'hex'))
      .digest();
    h[0] = 1;
    return `0x${h.toString('hex')}`;
  });
  expect(hashes).toContain(versionedHash);
  const blobs = (await (
    await fetch(`${beaconUrl}/eth/v1/beacon/blobs/${offset / perSlot}?versioned_hashes=${versionedHash}`)
  ).json()) as { data: string[] };
  expect(blobs.data).toHaveLength(1);
}

describe('tern-exec --dev with viem', () => {
  it('lists and uses the unlocked dev account (eth_accounts, eth_sendTransaction)', async () => {
    const wallet = createWalletClient({ transport: http(rpc) });
    expect((await wallet.getAddresses()).map((a) => a.toLowerCase())).toEqual([dev]);
    const hash = await wallet.sendTransaction({ account: dev, to: TO, value: 7n, chain: null });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    expect(receipt.from.toLowerCase()).toBe(dev);
  });

  it('delivers newHeads over WebSocket (watchBlocks)', async () => {
    const ws = createPublicClient({ transport: webSocket(wsUrl) });
    const seen: bigint[] = [];
    const unwatch = ws.watchBlocks({ onBlock: (b) => seen.push(b.number) });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const account = privateKeyToAccount(key);
      const wallet = createWalletClient({ account, transport: http(rpc) });
      const hash = await wallet.sendTransaction({ to: TO, value: 1n, chain: null });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
      for (let i = 0; i < 50 && !seen.includes(receipt.blockNumber); i++) await new Promise((r) => setTimeout(r, 100));
      expect(seen).toContain(receipt.blockNumber);
    } finally {
      unwatch();
      await (ws.transport as { getRpcClient?: () => Promise<{ close(): void }> })
        .getRpcClient?.()
        .then((c) => c.close());
    }
  });

  it('sends a blob transaction with c-kzg whose sidecar the beacon API serves', async () => {
    const account = privateKeyToAccount(key);
    const wallet = createWalletClient({ account, transport: http(rpc) });
    const blobs = toBlobs({ data: `0x${Buffer.from('viem blob on tern').toString('hex')}` });
    const hash = await wallet.sendTransaction({
      to: TO,
      blobs,
      kzg: defineKzg(loadCKzg()),
      maxFeePerBlobGas: 10_000_000_000n,
      chain: null,
    });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.type).toBe('eip4844');
    const tx = await client.getTransaction({ hash });
    const block = await client.getBlock({ blockHash: receipt.blockHash });
    await expectSidecar(block.timestamp, tx.blobVersionedHashes?.[0] as Hex);
  });
});
