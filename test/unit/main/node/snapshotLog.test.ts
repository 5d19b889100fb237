// --snapshotlog.file: op-node's "Rollup State Snapshot" JSON lines (geth's slog JSON handler: t, lvl, msg, then the
// attributes, block references JSON-encoded into strings), appended on each unsafe payload received through
// admin_postUnsafePayload with the heads as they were when it arrived.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../src/main/common/logger/index.js';
import { RpcClient } from '../../../../src/main/common/rpc/client.js';
import type { HttpRpcServer } from '../../../../src/main/common/rpc/http.js';
import { createNodeRpcServer } from '../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../src/main/common/rpc/registry.js';
import { toHex } from '../../../../src/main/node/derive/types.js';
import type { Driver } from '../../../../src/main/node/driver/driver.js';
import { toEngineAttributes } from '../../../../src/main/node/engine/attributes.js';
import { EngineController } from '../../../../src/main/node/engine/engineController.js';
import type { L1Source } from '../../../../src/main/node/l1/interface.js';
import { sequencingDefaults, setupSequencing } from '../../../../src/main/node/sequencer/setup.js';
import { openSnapshotLog, snapshotLine } from '../../../../src/main/node/snapshotLog.js';
import type { L2BlockRef } from '../../../../src/main/primitives/rollup/blockRef.js';
import { attrs, FakeEngine, GENESIS_L2, testConfig } from './engine/fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const h = (b: string) => `0x${b.repeat(32)}`;

const L1 = {
  hash: h('a1') as `0x${string}`,
  number: 100,
  parentHash: h('a0') as `0x${string}`,
  timestamp: 1_700_000_000,
};
const L2 = (n: number, b: string): L2BlockRef => ({
  hash: h(b),
  number: n,
  parentHash: h('00'),
  timestamp: 1_700_000_000 + 2 * n,
  l1origin: { hash: h('a1'), number: 100 },
  sequenceNumber: n % 3,
});

let dir: string | undefined;
let server: HttpRpcServer | undefined;
let client: RpcClient | undefined;
let lifecycle: Lifecycle | undefined;
afterEach(async () => {
  await client?.close();
  await server?.stop();
  await lifecycle?.stop('test done');
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = server = client = lifecycle = undefined;
});

const tempDir = () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-snapshotlog-'));
  return dir;
};

describe('snapshot line', () => {
  it('is op-node’s JSON line, field for field and in order', () => {
    const line = snapshotLine(
      'New unsafe payload',
      { l1Head: L1, unsafe: L2(5, 'c5'), safe: L2(4, 'c4'), finalized: undefined },
      new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)),
    );
    const ref = (n: number, b: string) =>
      `{"hash":"${h(b)}","number":${n},"parentHash":"${h('00')}","timestamp":${1_700_000_000 + 2 * n},` +
      `"l1origin":{"hash":"${h('a1')}","number":100},"sequenceNumber":${n % 3}}`;
    const zero = h('00');
    const expected = {
      t: '2026-01-02T03:04:05.006Z',
      lvl: 'info',
      msg: 'Rollup State Snapshot',
      event: 'New unsafe payload',
      l1Head: `{"hash":"${h('a1')}","number":100,"parentHash":"${h('a0')}","timestamp":1700000000}`,
      l2Head: ref(5, 'c5'),
      l2Safe: ref(4, 'c4'),
      // An unknown head is Go's zero value of the reference, as op-node marshals it.
      l2FinalizedHead: `{"hash":"${zero}","number":0,"parentHash":"${zero}","timestamp":0,"l1origin":{"hash":"${zero}","number":0},"sequenceNumber":0}`,
    };
    expect(line).toBe(JSON.stringify(expected));
    expect(Object.keys(JSON.parse(line))).toEqual([
      't',
      'lvl',
      'msg',
      'event',
      'l1Head',
      'l2Head',
      'l2Safe',
      'l2FinalizedHead',
    ]);
  });
});

describe('openSnapshotLog', () => {
  it('appends to an existing file, one line per snapshot', () => {
    const path = join(tempDir(), 'snap.log');
    writeFileSync(path, 'earlier\n');
    const at = new Date(0);
    const log = openSnapshotLog(path, { logger, now: () => at });
    const heads = { l1Head: L1, unsafe: L2(1, 'c1'), safe: L2(1, 'c1'), finalized: L2(0, 'c0') };
    log.snapshot('one', heads);
    log.snapshot('two', heads);
    log.close();
    log.snapshot('after close', heads);
    expect(readFileSync(path, 'utf8')).toBe(
      `earlier\n${snapshotLine('one', heads, at)}\n${snapshotLine('two', heads, at)}\n`,
    );
  });

  it('is off without a path and refuses a path it cannot open', () => {
    const off = openSnapshotLog('', { logger });
    expect(() =>
      off.snapshot('x', { l1Head: L1, unsafe: undefined, safe: undefined, finalized: undefined }),
    ).not.toThrow();
    const missing = join(tempDir(), 'no', 'such', 'dir', 'snap.log');
    expect(() => openSnapshotLog(missing, { logger })).toThrow(/cannot open the snapshot log .*no\/such\/dir/);
  });
});

describe('snapshot log on admin_postUnsafePayload', () => {
  it('records the heads as each payload arrives, before it is inserted', async () => {
    const path = join(tempDir(), 'snap.log');
    const cfg = testConfig();
    const engine = new FakeEngine(cfg);
    const controller = new EngineController(cfg, engine, { logger });
    const genesis = await engine.l2BlockRefByHash(GENESIS_L2);
    await controller.reset({ unsafe: genesis, safe: genesis, finalized: genesis });
    lifecycle = new Lifecycle(logger);
    const registry = new RpcRegistry();
    const snapshotLog = openSnapshotLog(path, { logger });
    await setupSequencing({
      options: { ...sequencingDefaults, adminApi: true, sequencerApi: true },
      config: cfg,
      logger,
      lifecycle,
      l1: {} as L1Source,
      l1Head: () => L1,
      engine,
      controller,
      driver: {
        runExclusive: (fn: () => Promise<unknown>) => fn(),
        requestReset: () => undefined,
      } as unknown as Driver,
      registry,
      onFatal: () => undefined,
      snapshotLog,
    });
    server = createNodeRpcServer({ host: '127.0.0.1', port: 0 }, { registry, logger });
    client = new RpcClient({ url: (await server.start()).url });

    // A block built by the engine (through the opstack namespace), then posted as if from a peer.
    const a = toEngineAttributes(attrs(cfg, genesis, 0, 1));
    const q = (n: bigint) => `0x${n.toString(16)}`;
    const info = await client.call('opstack_openBlockV1', [
      { hash: genesis.hash, number: genesis.number },
      {
        timestamp: q(a.timestamp),
        prevRandao: toHex(a.prevRandao),
        suggestedFeeRecipient: toHex(a.suggestedFeeRecipient),
        withdrawals: a.withdrawals?.map((w) => ({
          index: q(w.index),
          validatorIndex: q(w.validatorIndex),
          address: toHex(w.address),
          amount: q(w.amount),
        })),
        parentBeaconBlockRoot: a.parentBeaconBlockRoot && toHex(a.parentBeaconBlockRoot),
        transactions: a.transactions?.map((t) => toHex(t)),
        noTxPool: a.noTxPool,
        gasLimit: a.gasLimit === undefined ? undefined : q(a.gasLimit),
      },
    ]);
    const envelope = await client.call('opstack_sealBlockV1', [info]);
    expect(readFileSync(path, 'utf8')).toBe('');

    await client.call('admin_postUnsafePayload', [envelope]);
    const block1 = controller.heads.unsafe;
    expect(block1.number).toBe(1);
    await client.call('admin_postUnsafePayload', [envelope]);

    const lines = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    expect(lines).toHaveLength(2);
    expect(lines.map((l) => l.event)).toEqual(['New unsafe payload', 'New unsafe payload']);
    expect(JSON.parse(lines[0]?.l1Head ?? '').hash).toBe(L1.hash);
    expect(JSON.parse(lines[0]?.l2Head ?? '').hash).toBe(genesis.hash);
    expect(JSON.parse(lines[1]?.l2Head ?? '').hash).toBe(block1.hash);
    expect(JSON.parse(lines[1]?.l2Safe ?? '').hash).toBe(genesis.hash);
    expect(JSON.parse(lines[1]?.l2FinalizedHead ?? '').number).toBe(0);
  });
});
