// The running node: its options from tern-exec's flags, the genesis requirement, and the HTTP, WebSocket and IPC
// listeners it starts and stops through the lifecycle.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, webSocket } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../../src/main/cli/execFlags.js';
import { execNodeOptions } from '../../../../../src/main/cli/execOptions.js';
import { assertSupported, parseSettings } from '../../../../../src/main/cli/parse.js';
import { UsageError } from '../../../../../src/main/common/errors.js';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { RpcServerAddress } from '../../../../../src/main/common/rpc/http.js';
import { openDatabase } from '../../../../../src/main/exec/db/open.js';
import { ipcEndpoint, startExecNode } from '../../../../../src/main/exec/node.js';
import { freePort } from '../../../../helpers/processes.js';
import { buildTestChain, type TestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const settings = (argv: string[]) => {
  const s = parseSettings(EXEC_PROGRAM, { argv, env: {} });
  assertSupported(s);
  return s;
};
const dir = mkdtempSync(join(tmpdir(), 'tern-node-'));
let chain: TestChain;

beforeAll(async () => {
  chain = await buildTestChain(logger);
}, 120_000);

afterAll(async () => {
  await chain.db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A port nothing listens on right now. */
async function post(url: string, method: string, params: unknown[] = []): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as Record<string, unknown>;
}

describe('options from the flags', () => {
  it('maps --http*, --ws*, --ipc*, --rpc.*, --networkid and --gpo.* as geth does', () => {
    const o = execNodeOptions(
      settings([
        '--datadir',
        '/data',
        '--http',
        '--http.addr',
        '0.0.0.0',
        '--http.port',
        '9545',
        '--http.api',
        'eth,debug',
        '--http.corsdomain',
        'https://a.example',
        '--http.vhosts',
        '*',
        '--http.rpcprefix',
        '/rpc',
        '--ws',
        '--ws.port',
        '9546',
        '--ws.api',
        'eth',
        '--ws.origins',
        '*',
        '--ipcpath',
        'x.ipc',
        '--rpc.batch-request-limit',
        '7',
        '--rpc.batch-response-max-size',
        '1000',
        '--rpc.gascap',
        '123',
        '--rpc.evmtimeout',
        '2s',
        '--networkid',
        '10',
        '--gpo.blocks',
        '3',
        '--gpo.percentile',
        '50',
        '--gpo.maxprice',
        '9',
        '--gpo.ignoreprice',
        '4',
        '--gpo.minsuggestedpriorityfee',
        '8',
      ]),
    );
    expect(o.rpc).toEqual({
      http: {
        host: '0.0.0.0',
        port: 9545,
        apis: ['eth', 'debug'],
        corsDomains: ['https://a.example'],
        vhosts: ['*'],
        prefix: '/rpc',
      },
      ws: { host: 'localhost', port: 9546, apis: ['eth'], origins: ['*'], prefix: undefined },
      batchRequestLimit: 7,
      batchResponseMaxSize: 1000,
    });
    expect(o.ipcPath).toBe('/data/x.ipc');
    expect(o.backend).toEqual({
      networkId: 10n,
      gasCap: 123n,
      evmTimeoutMs: 2000,
      traceResultMaxBytes: 1000,
      gpo: { blocks: 3, percentile: 50, maxPrice: 9n, ignorePrice: 4n, minSuggestedPriorityFee: 8n },
    });
  });

  it('keeps geth’s defaults: no HTTP/WS, IPC in the datadir, 50M gas cap, 5 s timeout', () => {
    const o = execNodeOptions(settings(['--datadir', '/data']));
    expect(o.rpc.http).toBeUndefined();
    expect(o.rpc.ws).toBeUndefined();
    expect(o.ipcPath).toBe('/data/tern-exec.ipc');
    expect(o.backend).toMatchObject({ networkId: 0n, gasCap: 50_000_000n, evmTimeoutMs: 5000 });
    expect(execNodeOptions(settings(['--datadir', '/data', '--ipcdisable'])).ipcPath).toBeUndefined();
  });

  it('places the IPC socket like geth: bare names in the datadir, paths as given', () => {
    expect(ipcEndpoint('/d', undefined)).toBe('/d/tern-exec.ipc');
    expect(ipcEndpoint('/d', 'geth.ipc')).toBe('/d/geth.ipc');
    expect(ipcEndpoint('/d', '/run/x.ipc')).toBe('/run/x.ipc');
    expect(ipcEndpoint('/d', 'sub/x.ipc')).toBe('sub/x.ipc');
  });
});

describe('the node', () => {
  it('refuses to start without a genesis, naming init', async () => {
    const db = await openDatabase({ engine: 'memory' });
    const lifecycle = new Lifecycle(logger);
    await expect(
      startExecNode(db, { rpc: {}, ipcPath: undefined, backend: {} }, { logger, lifecycle }),
    ).rejects.toThrow(UsageError);
    await expect(
      startExecNode(db, { rpc: {}, ipcPath: undefined, backend: {} }, { logger, lifecycle }),
    ).rejects.toThrow(/tern-exec init/);
    await db.close();
  });

  it('serves HTTP with geth’s default namespaces and WebSocket on its own port, stopping both', async () => {
    const lifecycle = new Lifecycle(logger);
    const ipcPath = join(dir, 'node.ipc');
    const node = await startExecNode(
      chain.db,
      {
        rpc: {
          http: { host: '127.0.0.1', port: 0 },
          ws: { host: '127.0.0.1', port: await freePort(), apis: ['eth'] },
        },
        ipcPath,
        backend: { networkId: 77n },
      },
      { logger, lifecycle },
    );
    expect(node.addresses.length).toBe(2);
    const http = node.addresses[0] as RpcServerAddress;
    const ws = node.addresses[1] as RpcServerAddress & { wsUrl: string };
    expect((await post(http.url, 'net_version')).result).toBe('77');
    expect((await post(http.url, 'eth_blockNumber')).error).toMatchObject({ code: -32601 });
    const client = createPublicClient({ transport: webSocket(ws.wsUrl, { retryCount: 0, reconnect: false }) });
    expect(await client.getBlockNumber({ cacheTime: 0 })).toBe(20n);
    const socket = await client.transport.getRpcClient();
    socket.close();
    expect(existsSync(ipcPath)).toBe(true);
    await lifecycle.stop('test');
    expect(existsSync(ipcPath)).toBe(false);
    await expect(fetch(http.url, { method: 'POST' })).rejects.toThrow();
  });

  it('shares one socket when HTTP and WebSocket use the same port', async () => {
    const port = await freePort();
    const shared = new Lifecycle(logger);
    const node = await startExecNode(
      chain.db,
      {
        rpc: {
          http: { host: '127.0.0.1', port, apis: ['eth'] },
          ws: { host: '127.0.0.1', port, apis: ['eth'] },
        },
        ipcPath: undefined,
        backend: {},
      },
      { logger, lifecycle: shared },
    );
    expect(node.addresses.length).toBe(1);
    expect(node.addresses[0]?.wsUrl).toBe(`ws://127.0.0.1:${port}`);
    expect((await post(node.addresses[0]?.url as string, 'eth_blockNumber')).result).toBe('0x14');
    await shared.stop('test');
  });
});
