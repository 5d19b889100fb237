// GraphQL from a client's side (Node's fetch), on real processes: (a) `tern-exec --dev --http --graphql` — the
// head block's number, hash and transactions against eth_getBlockByNumber, a `call`, a bad query answered 400 with
// an errors array, the query page, and `--graphql` without `--http` refused; (b) the `npm start` devnet with
// GraphQL switched on through the environment (TERN_EXEC_GRAPHQL) — a query on the sequencer's L2 head, whose
// first transaction is the L1-info deposit, checked against the JSON-RPC answers for the same block.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort } from '../helpers/processes.js';
import { DevnetChild } from './devnetChild.js';

const BIN = join(ROOT, 'bin/tern-exec.js');

// biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field against the JSON-RPC's
type GraphqlBody = { data?: Record<string, any>; errors?: Array<{ message: string }> };

async function graphql(rpcUrl: string, query: string): Promise<{ status: number; body: GraphqlBody }> {
  const res = await fetch(`${rpcUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, body: (await res.json()) as GraphqlBody };
}

describe('tern-exec --dev --http --graphql', () => {
  let node: ChildProcess;
  let logs = '';
  let rpc: string;

  beforeAll(async () => {
    const [httpPort, authPort, beaconPort] = [await freePort(), await freePort(), await freePort()];
    rpc = `http://127.0.0.1:${httpPort}`;
    node = spawn(
      process.execPath,
      [
        BIN,
        '--dev',
        '--http',
        `--http.port=${httpPort}`,
        '--http.api=eth,net,web3',
        '--graphql',
        `--authrpc.port=${authPort}`,
        `--dev.beacon.port=${beaconPort}`,
        '--ipcdisable',
        '--log.format=logfmt',
      ],
      { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    node.stdout?.on('data', (d) => {
      logs += String(d);
    });
    node.stderr?.on('data', (d) => {
      logs += String(d);
    });
    for (let i = 0; i < 300 && !logs.includes('Sealing blocks'); i++) await new Promise((r) => setTimeout(r, 100));
    if (!logs.includes('Sealing blocks')) throw new Error(`tern-exec --dev did not start:\n${logs}`);
  }, 60_000);

  afterAll(async () => {
    if (node && node.exitCode === null) {
      node.kill('SIGTERM');
      await new Promise((r) => node.once('exit', r));
    }
  });

  it("answers the head block's number, hash and transactions as eth_getBlockByNumber does", async () => {
    // A transfer from the developer account, sealed at once (period 0), so the head holds a transaction.
    const dev = (await rpcCall<string[]>(rpc, 'eth_accounts'))[0] as string;
    const txHash = await rpcCall<string>(rpc, 'eth_sendTransaction', [
      { from: dev, to: '0x1111111111111111111111111111111111111111', value: '0x2a' },
    ]);
    let head: { number: string; hash: string; transactions: string[] } | undefined;
    for (let i = 0; i < 100 && !head?.transactions.includes(txHash); i++) {
      await new Promise((r) => setTimeout(r, 100));
      head = await rpcCall(rpc, 'eth_getBlockByNumber', ['latest', false]);
    }
    expect(head?.transactions).toContain(txHash);
    const { status, body } = await graphql(
      rpc,
      '{ block { number hash transactions { hash from { address } to { address } value status } } }',
    );
    expect(status).toBe(200);
    const block = body.data?.block;
    // --dev seals only when a transaction comes (period 0): the head is still the block of the transfer.
    expect(block.number).toBe(head?.number);
    expect(block.hash).toBe(head?.hash);
    expect(block.transactions).toEqual([
      {
        hash: txHash,
        from: { address: dev.toLowerCase() },
        to: { address: '0x1111111111111111111111111111111111111111' },
        value: '0x2a',
        status: '0x1',
      },
    ]);
  });

  it('runs a call (the identity precompile echoes its input)', async () => {
    const { status, body } = await graphql(
      rpc,
      '{ block { call(data: { to: "0x0000000000000000000000000000000000000004", data: "0xc0ffee" }) { data status gasUsed } } }',
    );
    expect(status).toBe(200);
    expect(body.data?.block.call).toMatchObject({ data: '0xc0ffee', status: '0x1' });
  });

  it('answers a bad query with 400 and an errors array', async () => {
    const { status, body } = await graphql(rpc, '{ block { nosuchfield } }');
    expect(status).toBe(400);
    expect(Array.isArray(body.errors)).toBe(true);
    expect(body.errors?.length).toBeGreaterThan(0);
  });

  it('serves the query page at /graphql/ui', async () => {
    const res = await fetch(`${rpc}/graphql/ui`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toContain('/graphql');
  });

  it('refuses --graphql without --http', () => {
    const r = spawnSync(process.execPath, [BIN, '--dev', '--graphql', '--ipcdisable'], {
      env: cleanEnv(),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/GraphQL cannot start/);
  });
});

describe('the devnet L2 over GraphQL', () => {
  let devnet: DevnetChild | undefined;
  let info: DevnetInfo;
  const saved = process.env.TERN_EXEC_GRAPHQL;

  beforeAll(async () => {
    // Every tern-exec the devnet starts (layer 1 and the L2 engines, all with --http) serves GraphQL.
    process.env.TERN_EXEC_GRAPHQL = 'true';
    devnet = new DevnetChild('tern-graphql-e2e-', ['--status-interval=5', '--l1-block-time=1']);
    info = await devnet.ready(150_000);
  }, 180_000);

  afterAll(() => {
    if (saved === undefined) delete process.env.TERN_EXEC_GRAPHQL;
    else process.env.TERN_EXEC_GRAPHQL = saved;
    devnet?.cleanup();
  });

  it("serves the sequencer's L2 blocks, the L1-info deposit first, as the JSON-RPC does", async () => {
    const seq = info.nodes.find((n) => n.role === 'sequencer');
    if (!seq) throw new Error('devnet.json lists no sequencer');
    const number = await (devnet as DevnetChild).until('an L2 block', 60_000, async () => {
      const n = Number(await rpcCall<string>(seq.execRpc, 'eth_blockNumber'));
      return n >= 1 ? n : undefined;
    });
    const { status, body } = await graphql(
      seq.execRpc,
      `{ block(number: ${number}) { number hash transactionCount transactions { hash type index nonce gas gasPrice
          maxFeePerGas effectiveGasPrice r s v yParity status gasUsed inputData raw rawReceipt
          from { address } to { address } block { number } } } }`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    const block = body.data?.block;
    const rpcBlock = await rpcCall<{ hash: string; transactions: Array<Record<string, string>> }>(
      seq.execRpc,
      'eth_getBlockByNumber',
      [`0x${number.toString(16)}`, true],
    );
    expect(block.hash).toBe(rpcBlock.hash);
    expect(block.transactionCount).toBe(`0x${rpcBlock.transactions.length.toString(16)}`);
    const deposit = block.transactions[0];
    const rpcDeposit = rpcBlock.transactions[0] as Record<string, string>;
    expect(deposit).toMatchObject({
      hash: rpcDeposit.hash,
      type: '0x7e',
      index: '0x0',
      gasPrice: '0x0',
      maxFeePerGas: null,
      effectiveGasPrice: '0x0',
      yParity: '0x0',
      nonce: '0x0',
      r: '0x0',
      s: '0x0',
      v: '0x0',
      status: '0x1',
      inputData: rpcDeposit.input,
      from: { address: '0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001' },
      to: { address: '0x4200000000000000000000000000000000000015' },
      block: { number: `0x${number.toString(16)}` },
    });
    expect(deposit.gas).toBe(rpcDeposit.gas);
    const raw = await rpcCall<string>(seq.execRpc, 'eth_getRawTransactionByHash', [rpcDeposit.hash]);
    expect(deposit.raw).toBe(raw);
    const receipts = await rpcCall<string[]>(seq.execRpc, 'debug_getRawReceipts', [`0x${number.toString(16)}`]);
    expect(deposit.rawReceipt).toBe(receipts[0]);
    const receipt = await rpcCall<{ gasUsed: string }>(seq.execRpc, 'eth_getTransactionReceipt', [rpcDeposit.hash]);
    expect(deposit.gasUsed).toBe(receipt.gasUsed);
  }, 90_000);
});
