// The conductor client against a local JSON-RPC stub that speaks op-conductor's methods: leader, commit of the
// payload envelope in op-node's JSON shape, active, retries once on failure, timeouts, and the leader override.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import type { HttpRpcServer } from '../../../../../src/main/common/rpc/http.js';
import { createNodeRpcServer } from '../../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { ConductorClient } from '../../../../../src/main/node/conductor/client.js';
import type { ExecutionPayload } from '../../../../../src/main/node/engine/interface.js';
import { serverError } from '../../../../../src/main/protocol/jsonrpc/errors.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

interface ConductorStub {
  leader: boolean;
  active: boolean;
  failNext: number;
  delayMs: number;
  commits: unknown[];
  calls: string[];
}

/** A conductor stub on a free port; returns its URL and the state tests steer. */
async function startConductorStub(): Promise<{ url: string; stub: ConductorStub; server: HttpRpcServer }> {
  const stub: ConductorStub = { leader: true, active: true, failNext: 0, delayMs: 0, commits: [], calls: [] };
  const gate = async (method: string) => {
    stub.calls.push(method);
    if (stub.delayMs > 0) await new Promise((r) => setTimeout(r, stub.delayMs));
    if (stub.failNext > 0) {
      stub.failNext--;
      throw serverError('raft: not ready');
    }
  };
  const registry = new RpcRegistry().registerNamespace('conductor', {
    leader: async () => {
      await gate('leader');
      return stub.leader;
    },
    active: async () => {
      await gate('active');
      return stub.active;
    },
    commitUnsafePayload: async (params) => {
      await gate('commitUnsafePayload');
      stub.commits.push(params[0]);
      return null;
    },
  });
  const server = createNodeRpcServer({ host: '127.0.0.1', port: 0 }, { registry, logger });
  const addr = await server.start();
  return { url: addr.url, stub, server };
}

function samplePayload(n = 1n): ExecutionPayload {
  return {
    parentHash: new Uint8Array(32).fill(1),
    feeRecipient: new Uint8Array(20).fill(2),
    stateRoot: new Uint8Array(32).fill(3),
    receiptsRoot: new Uint8Array(32).fill(4),
    logsBloom: new Uint8Array(256),
    prevRandao: new Uint8Array(32).fill(6),
    blockNumber: n,
    gasLimit: 30_000_000n,
    gasUsed: 0n,
    timestamp: 1002n,
    extraData: new Uint8Array(0),
    baseFeePerGas: 7n,
    blockHash: new Uint8Array(32).fill(9),
    transactions: [Uint8Array.of(0x7e, 1)],
    withdrawals: [],
    blobGasUsed: 0n,
    excessBlobGas: 0n,
  };
}

describe('ConductorClient', () => {
  let url: string;
  let stub: ConductorStub;
  let server: HttpRpcServer;
  let client: ConductorClient;

  beforeEach(async () => {
    ({ url, stub, server } = await startConductorStub());
    client = new ConductorClient({ url, timeoutMs: 300 }, { logger });
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  it('asks conductor_leader and conductor_active', async () => {
    expect(await client.leader()).toBe(true);
    stub.leader = false;
    expect(await client.leader()).toBe(false);
    stub.active = false;
    expect(await client.active()).toBe(false);
    expect(stub.calls).toEqual(['leader', 'leader', 'active']);
  });

  it('commits the payload envelope in op-node JSON', async () => {
    await client.commitUnsafePayload({
      executionPayload: samplePayload(5n),
      parentBeaconBlockRoot: new Uint8Array(32).fill(0xbe),
    });
    const env = stub.commits[0] as { executionPayload: Record<string, unknown>; parentBeaconBlockRoot: string };
    expect(env.parentBeaconBlockRoot).toBe(`0x${'be'.repeat(32)}`);
    expect(env.executionPayload.blockNumber).toBe('0x5');
    expect(env.executionPayload.blockHash).toBe(`0x${'09'.repeat(32)}`);
    expect(env.executionPayload.transactions).toEqual(['0x7e01']);
  });

  it('tries twice, then fails with CONDUCTOR_RPC', async () => {
    stub.failNext = 1;
    expect(await client.leader()).toBe(true);
    expect(stub.calls).toEqual(['leader', 'leader']);
    stub.failNext = 2;
    await expect(client.commitUnsafePayload({ executionPayload: samplePayload() })).rejects.toMatchObject({
      code: 'CONDUCTOR_RPC',
    });
    expect(stub.commits).toHaveLength(0);
  });

  it('gives up after the rpc timeout', async () => {
    stub.delayMs = 1000;
    const t0 = Date.now();
    await expect(client.leader()).rejects.toMatchObject({ code: 'CONDUCTOR_RPC' });
    expect(Date.now() - t0).toBeLessThan(900);
  });

  it('after overrideLeader: always leader and commits nothing, without calling the conductor', async () => {
    stub.leader = false;
    await client.overrideLeader();
    expect(client.leaderOverridden).toBe(true);
    expect(await client.leader()).toBe(true);
    await client.commitUnsafePayload({ executionPayload: samplePayload() });
    expect(stub.calls).toEqual([]);
  });
});
