// ethereum/execution-apis conformance (the fixtures hive's rpc-compat simulator replays): the test chain is
// initialised and imported into an LMDB datadir as `tern-exec init` / `import` do, headfcu.json's forkchoice is
// applied, the node is started with its real HTTP listener (the program's code path, port 0), and every `.io`
// file is replayed: each `>>` request is sent and its answer compared with the `<<` line — parsed JSON deep-equal;
// with `speconly` in a comment only the shape (same keys, same value types); for errors the code (and data)
// must match while the message may differ. Methods tern does not serve yet are listed in NOT_YET and must answer
// -32601, so the list cannot go stale. A fixture the runner does not know how to read fails the suite.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../src/main/common/lifecycle.js';
import { createLogger } from '../../src/main/common/logger/index.js';
import { type ExecNode, startExecNode } from '../../src/main/exec/node.js';
import { buildTestChain, EXECUTION_APIS } from '../unit/main/exec/rpc/chain.js';

/** Methods with fixtures that tern-exec does not serve yet (they need the transaction pool). */
const NOT_YET = new Set<string>([]);

/**
 * Fixtures whose recorded answer no client computes, with the answer geth's code gives on this chain.
 * - eth_feeHistory/fee-history.io: the blob fields were written by hand in execution-apis#486 (commit 4b225e0d)
 *   rather than generated: block 2 used no blob gas, so its blobGasUsedRatio is 0 and the next blob base fee
 *   is still 1 (the regenerated fixture upstream is marked speconly). Everything else is compared exactly.
 */
const ERRATA: Record<string, (expected: Record<string, unknown>) => void> = {
  'eth_feeHistory/fee-history.io': (expected) => {
    const result = expected.result as Record<string, unknown>;
    result.baseFeePerBlobGas = ['0x1', '0x1'];
    result.blobGasUsedRatio = [0];
  },
};

interface Exchange {
  request: string;
  expected: Record<string, unknown>;
}

interface Fixture {
  name: string;
  method: string;
  specOnly: boolean;
  exchanges: Exchange[];
}

function readFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const dir of readdirSync(EXECUTION_APIS, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    for (const file of readdirSync(join(EXECUTION_APIS, dir.name)).sort()) {
      const name = `${dir.name}/${file}`;
      if (!file.endsWith('.io')) throw new Error(`unknown fixture file ${name}`);
      const lines = readFileSync(join(EXECUTION_APIS, name), 'utf8').split('\n');
      let specOnly = false;
      const exchanges: Exchange[] = [];
      let request: string | undefined;
      for (const line of lines) {
        if (line.trim() === '') continue;
        if (line.startsWith('//')) {
          if (line.includes('speconly')) specOnly = true;
        } else if (line.startsWith('>> ')) {
          request = line.slice(3);
        } else if (line.startsWith('<< ')) {
          if (request === undefined) throw new Error(`${name}: response without a request`);
          exchanges.push({ request, expected: JSON.parse(line.slice(3)) as Record<string, unknown> });
          request = undefined;
        } else {
          throw new Error(`${name}: cannot read line ${JSON.stringify(line)}`);
        }
      }
      if (exchanges.length === 0) throw new Error(`${name}: no exchanges`);
      const method = (JSON.parse((exchanges[0] as Exchange).request) as { method: string }).method;
      ERRATA[name]?.((exchanges[0] as Exchange).expected);
      out.push({ name, method, specOnly, exchanges });
    }
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** speconly: the same JSON shape — same kinds of values, objects with the same keys, arrays element-wise. */
function sameShape(actual: unknown, expected: unknown, path = '$'): string | undefined {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (kind(actual) !== kind(expected)) return `${path}: ${kind(actual)} instead of ${kind(expected)}`;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length > 0 && actual.length > 0) return sameShape(actual[0], expected[0], `${path}[0]`);
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    const keys = [...new Set([...Object.keys(a), ...Object.keys(e)])].sort();
    for (const k of keys) {
      if (!(k in a)) return `${path}.${k} missing`;
      if (!(k in e)) return `${path}.${k} unexpected`;
      const d = sameShape(a[k], e[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return undefined;
}

const fixtures = readFixtures();
const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const dir = mkdtempSync(join(tmpdir(), 'tern-execapis-'));
const lifecycle = new Lifecycle(logger);
let node: ExecNode;
let url: string;
const outcome = { passed: [] as string[], notYet: [] as string[], failed: [] as string[] };

async function post(body: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

beforeAll(async () => {
  const { db } = await buildTestChain(logger, join(dir, 'datadir'));
  lifecycle.onStop('database', () => db.close());
  node = await startExecNode(
    db,
    {
      rpc: { http: { host: '127.0.0.1', port: 0, apis: ['eth', 'net', 'web3', 'debug'] } },
      ipcPath: join(dir, 'datadir', 'tern-exec.ipc'),
      backend: {},
    },
    { logger, lifecycle },
  );
  url = (node.addresses[0] as { url: string }).url;
}, 120_000);

afterAll(async () => {
  await lifecycle.stop('test done');
  rmSync(dir, { recursive: true, force: true });
  const line = (label: string, names: string[]) =>
    `${label} (${names.length})${names.length ? `: ${names.join(', ')}` : ''}`;
  process.stdout.write(
    `execution-apis: ${[line('passed', outcome.passed), line('not yet', outcome.notYet), line('failed', outcome.failed)].join('; ')}\n`,
  );
});

describe('execution-apis conformance', () => {
  it('reads every fixture', () => {
    expect(fixtures.length).toBeGreaterThan(80);
    const methods = new Set(fixtures.map((f) => f.method));
    for (const m of NOT_YET) expect(methods.has(m), `${m} in NOT_YET has no fixture`).toBe(true);
  });

  for (const fx of fixtures) {
    it(`${fx.name}${fx.specOnly ? ' (speconly)' : ''}`, async () => {
      try {
        for (const { request, expected } of fx.exchanges) {
          const actual = await post(request);
          if (NOT_YET.has(fx.method)) {
            expect((actual.error as { code?: number } | undefined)?.code).toBe(-32601);
            continue;
          }
          expect(actual.id).toEqual(expected.id);
          expect(actual.jsonrpc).toBe('2.0');
          if ('error' in expected) {
            const e = expected.error as { code: number; message: string; data?: unknown };
            expect(actual.error, JSON.stringify(actual)).toBeDefined();
            const a = actual.error as { code: number; message: string; data?: unknown };
            expect(a.code, a.message).toBe(e.code);
            expect(typeof a.message).toBe('string');
            expect(a.data).toEqual(e.data);
          } else if (fx.specOnly) {
            expect(actual.error, JSON.stringify(actual.error)).toBeUndefined();
            expect(sameShape(actual.result, expected.result)).toBeUndefined();
          } else {
            expect(actual.error, JSON.stringify(actual.error)).toBeUndefined();
            expect(actual.result).toEqual(expected.result);
          }
        }
        (NOT_YET.has(fx.method) ? outcome.notYet : outcome.passed).push(fx.name);
      } catch (err) {
        outcome.failed.push(fx.name);
        throw err;
      }
    });
  }
});

describe('clients against the running node', () => {
  it('viem reads blocks, balances, receipts and logs over HTTP', async () => {
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }) });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(20n);
    expect(await client.getChainId()).toBe(3503995874084926);
    const block = await client.getBlock({ blockNumber: 2n, includeTransactions: true });
    expect(block.hash).toBe('0xa111ce2477e1dd45173ba93cac819e62947e62a63a7d561b6f4825fb31c22645');
    expect(block.transactions.length).toBeGreaterThan(0);
    expect(await client.getBalance({ address: '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df' })).toBe(0x3fn);
    const receipt = await client.getTransactionReceipt({
      hash: '0xbdb37c763e721bf1a0e94e0bc72db704110b2ccc6720713708744422a2cc95d6',
    });
    expect(receipt.contractAddress).toBe('0x9344b07175800259691961298ca11c824e65032d');
    expect(receipt.status).toBe('success');
    const logs = await client.getLogs({
      address: '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df',
      fromBlock: 1n,
      toBlock: 4n,
    });
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.every((l) => l.address === '0x7dcd17433742f4c0ca53122ab541d0ba67fc27df')).toBe(true);
  });

  it('answers over IPC at <datadir>/tern-exec.ipc', async () => {
    const path = join(dir, 'datadir', 'tern-exec.ipc');
    const socket = connect(path);
    const answer = await new Promise<Record<string, unknown>>((resolve, reject) => {
      let buf = '';
      socket.on('data', (d) => {
        buf += d.toString('utf8');
        const nl = buf.indexOf('\n');
        if (nl !== -1) resolve(JSON.parse(buf.slice(0, nl)) as Record<string, unknown>);
      });
      socket.on('error', reject);
      socket.write('{"jsonrpc":"2.0","id":7,"method":"eth_blockNumber","params":[]}');
    });
    socket.end();
    expect(answer).toEqual({ jsonrpc: '2.0', id: 7, result: '0x14' });
  });
});
