// The guarantee of the call workers: looping eth_calls (each running up to --rpc.evmtimeout) never delay the rest of
// the node. On the inline path four of them froze eth_chainId for ~20 s and engine_exchangeCapabilities for seconds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcClient } from '../../../../../src/main/common/rpc/client.js';
import { type ExecNode, startExecNode } from '../../../../../src/main/exec/node.js';
import { buildTestChain } from './chain.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
/** JUMPDEST PUSH1 0 JUMP: loops until out of gas or --rpc.evmtimeout. */
const LOOP = '0x5b600056';
const secret = new Uint8Array(32).fill(0x42);
const dir = mkdtempSync(join(tmpdir(), 'tern-callworkers-'));
const lifecycle = new Lifecycle(logger);
let node: ExecNode;
let user: RpcClient;
let engine: RpcClient;

beforeAll(async () => {
  const { db } = await buildTestChain(logger);
  lifecycle.onStop('database', () => db.close());
  const jwtSecretPath = join(dir, 'jwt');
  writeFileSync(jwtSecretPath, Buffer.from(secret).toString('hex'));
  node = await startExecNode(
    db,
    {
      rpc: { http: { host: '127.0.0.1', port: 0, apis: ['eth'] } },
      auth: { host: '127.0.0.1', port: 0, vhosts: undefined, jwtSecretPath },
      ipcPath: undefined,
      backend: { evmTimeoutMs: 5000 },
      callWorkers: 2,
    },
    { logger, lifecycle },
  );
  user = new RpcClient({ url: (node.addresses[0] as { url: string }).url, timeoutMs: 60_000 }, { logger });
  engine = new RpcClient(
    { url: (node.authAddress as { url: string }).url, jwtSecret: secret, timeoutMs: 60_000 },
    { logger },
  );
}, 120_000);

afterAll(async () => {
  await user?.close();
  await engine?.close();
  await lifecycle.stop('test done');
  rmSync(dir, { recursive: true, force: true });
});

async function timed(p: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await p();
  return performance.now() - started;
}

describe('call workers', () => {
  it('are started and warmed at node start: one warm-up call on each of the two threads', async () => {
    expect(await node.callWorkersWarm).toBe(2);
  });

  it('answer eth_chainId and the Engine API at once while four looping eth_calls run', async () => {
    const loops = Array.from({ length: 4 }, () =>
      user.call('eth_call', [{ input: LOOP }, 'latest']).then(
        () => 'answered',
        (err: Error) => err.message,
      ),
    );
    // Let the calls reach the workers and start looping.
    await new Promise((r) => setTimeout(r, 300));
    const chainId: number[] = [];
    const caps: number[] = [];
    for (let i = 0; i < 5; i++) {
      chainId.push(await timed(() => user.call('eth_chainId', [])));
      caps.push(await timed(() => engine.call('engine_exchangeCapabilities', [[]])));
    }
    // The real figure is tens of milliseconds at most (bench/); the bound leaves room for a loaded CI machine.
    expect(Math.max(...chainId)).toBeLessThan(500);
    expect(Math.max(...caps)).toBeLessThan(500);
    // Every looping call still gets its answer: out of gas or aborted at --rpc.evmtimeout.
    for (const outcome of await Promise.all(loops)) {
      expect(outcome).toMatch(/^(out of gas|execution aborted \(timeout = 5s\))$/);
    }
  }, 60_000);

  it('serve calls concurrently: a call is answered while looping calls hold the other workers', async () => {
    const loops = [user.call('eth_call', [{ input: LOOP }, 'latest']).catch(() => undefined)];
    await new Promise((r) => setTimeout(r, 200));
    const ms = await timed(async () =>
      expect(await user.call('eth_call', [{ to: '0x17e7eedce4ac02ef114a7ed9fe6e2f33feba1667', input: '0xff01' }])).toBe(
        '0xffee',
      ),
    );
    expect(ms).toBeLessThan(2000);
    await Promise.all(loops);
  }, 60_000);

  it('stop at once on shutdown: a looping call does not hold the node for --rpc.evmtimeout', async () => {
    const own = new Lifecycle(logger);
    const { db } = await buildTestChain(logger);
    own.onStop('database', () => db.close());
    const n = await startExecNode(
      db,
      {
        rpc: { http: { host: '127.0.0.1', port: 0, apis: ['eth'] } },
        ipcPath: undefined,
        backend: { evmTimeoutMs: 5000 },
        callWorkers: 1,
      },
      { logger, lifecycle: own },
    );
    const client = new RpcClient({ url: (n.addresses[0] as { url: string }).url, timeoutMs: 60_000 }, { logger });
    const loop = client.call('eth_call', [{ input: LOOP }, 'latest']).then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((r) => setTimeout(r, 300));
    const ms = await timed(() => own.stop('test'));
    expect(ms).toBeLessThan(2500);
    expect(await loop).toBe('failed');
    await client.close();
  }, 60_000);
});
