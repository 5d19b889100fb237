// The optimism namespace over a real HTTP listener, compared with op-node's JSON field names
// (op-service/eth/sync_status.go, output.go, id.go) and parameter types.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TernError } from '../../../../../src/main/common/errors.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcClient } from '../../../../../src/main/common/rpc/client.js';
import { createNodeRpcServer } from '../../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import type { SyncStatus } from '../../../../../src/main/node/driver/driver.js';
import { engineNotFound } from '../../../../../src/main/node/engine/interface.js';
import { registerOptimismApi } from '../../../../../src/main/node/rpc/optimism.js';
import type { SafeHeadStore } from '../../../../../src/main/node/safedb/safedb.js';
import type { L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { RpcError } from '../../../../../src/main/protocol/jsonrpc/errors.js';
import { GENESIS_L1, testConfig } from '../engine/fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const cfg = testConfig();
const pad = (b: number) => `0x${'00'.repeat(31)}${b.toString(16).padStart(2, '0')}`;
const unsafe: L2BlockRef = {
  hash: pad(9),
  number: 9,
  parentHash: pad(8),
  timestamp: 1018,
  l1origin: { hash: GENESIS_L1, number: 0 },
  sequenceNumber: 9,
};
const status: SyncStatus = {
  currentL1: { hash: pad(3), number: 3, parentHash: pad(2), timestamp: 36 },
  currentL1Finalized: undefined,
  headL1: { hash: pad(4), number: 4, parentHash: pad(3), timestamp: 48 },
  safeL1: undefined,
  finalizedL1: undefined,
  unsafeL2: unsafe,
  safeL2: unsafe,
  finalizedL2: undefined,
  pendingSafeL2: unsafe,
  crossUnsafeL2: unsafe,
  localSafeL2: unsafe,
};

const safeDb: SafeHeadStore = {
  enabled: true,
  safeHeadUpdated: async () => {},
  safeHeadReset: async () => {},
  close: async () => {},
  async safeHeadAtL1(n: number) {
    if (n < 3) throw new TernError('SAFEDB_NOT_FOUND', 'not found');
    return { l1Block: { hash: pad(3), number: 3 }, safeHead: { hash: pad(9), number: 9 } };
  },
};

describe('optimism namespace', () => {
  const registry = new RpcRegistry();
  registerOptimismApi(registry, {
    config: cfg,
    syncStatus: () => status,
    safeDb,
    version: 'v0.1.0-test',
    async outputAtBlock(n) {
      if (n !== 9) throw engineNotFound(`block ${n}`);
      const b = (x: number) => {
        const out = new Uint8Array(32);
        out.set([x >> 8, x & 0xff], 30);
        return out;
      };
      return { ref: unsafe, stateRoot: b(0xbeef), messagePasserStorageRoot: b(0xbabe), blockHash: b(0xc0de) };
    },
  });
  const server = createNodeRpcServer({ host: '127.0.0.1', port: 0 }, { registry, logger });
  let client: RpcClient;
  beforeAll(async () => {
    const addr = await server.start();
    client = new RpcClient({ url: addr.url });
  });
  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  it("optimism_syncStatus has op-node's keys and zeroed refs for unknown heads", async () => {
    const s = await client.call<Record<string, Record<string, unknown>>>('optimism_syncStatus');
    expect(Object.keys(s).sort()).toEqual(
      [
        'current_l1',
        'current_l1_finalized',
        'head_l1',
        'safe_l1',
        'finalized_l1',
        'unsafe_l2',
        'safe_l2',
        'finalized_l2',
        'pending_safe_l2',
        'cross_unsafe_l2',
        'local_safe_l2',
      ].sort(),
    );
    expect(s.current_l1).toEqual({ hash: pad(3), number: 3, parentHash: pad(2), timestamp: 36 });
    expect(s.finalized_l1).toEqual({
      hash: `0x${'00'.repeat(32)}`,
      number: 0,
      parentHash: `0x${'00'.repeat(32)}`,
      timestamp: 0,
    });
    expect(s.unsafe_l2).toEqual({
      hash: pad(9),
      number: 9,
      parentHash: pad(8),
      timestamp: 1018,
      l1origin: { hash: GENESIS_L1, number: 0 },
      sequenceNumber: 9,
    });
  });

  it("optimism_outputAtBlock answers op-node's OutputResponse with the v0 root", async () => {
    const o = await client.call<Record<string, unknown>>('optimism_outputAtBlock', ['0x9']);
    expect(Object.keys(o).sort()).toEqual([
      'blockRef',
      'outputRoot',
      'stateRoot',
      'syncStatus',
      'version',
      'withdrawalStorageRoot',
    ]);
    expect(o.version).toBe(`0x${'00'.repeat(32)}`);
    expect(o.outputRoot).toBe('0x0c39fb6b07cf6694b13e63e59f7b15255be1c93a4d6d3e0da6c99729647c0d11');
    expect((o.blockRef as { number: number }).number).toBe(9);
    const err = await client.call('optimism_outputAtBlock', ['0x10']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).message).toBe('not found');
    await expect(client.call('optimism_outputAtBlock', [9])).rejects.toBeInstanceOf(RpcError);
  });

  it('optimism_rollupConfig, optimism_version and optimism_safeHeadAtL1Block', async () => {
    const c = await client.call<Record<string, unknown>>('optimism_rollupConfig');
    expect(c.block_time).toBe(2);
    expect(c.seq_window_size).toBe(4);
    expect((c.genesis as { l2_time: number }).l2_time).toBe(1000);
    expect(await client.call('optimism_version')).toBe('v0.1.0-test');
    expect(await client.call('optimism_safeHeadAtL1Block', ['0x5'])).toEqual({
      l1Block: { hash: pad(3), number: 3 },
      safeHead: { hash: pad(9), number: 9 },
    });
    await expect(client.call('optimism_safeHeadAtL1Block', ['0x1'])).rejects.toThrow('not found');
  });
});
