// Managed mode against a scripted supervisor of our own: a WebSocket client that signs its own JWTs drives the
// interop namespace of the server startInterop() builds, over tern-node's engine controller and an in-memory
// engine. Checks the JWT gate (with geth's reasons), the secret file, the events a supervisor receives for new
// unsafe and derived blocks, the supervisor's cross-unsafe/cross-safe/finalized decisions moving the node's heads
// (and the engine's forkchoice), and op-node's result shapes and error codes.

import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { NODE_PROGRAM } from '../../../../../src/main/cli/nodeFlags.js';
import { replicaOptions } from '../../../../../src/main/cli/nodeOptions.js';
import { parseSettings } from '../../../../../src/main/cli/parse.js';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { signJwt } from '../../../../../src/main/common/rpc/jwt.js';
import { keccak256 } from '../../../../../src/main/native/keccak.js';
import { L1Traversal } from '../../../../../src/main/node/derive/l1Traversal.js';
import { systemConfigFromGenesis } from '../../../../../src/main/node/derive/systemConfig.js';
import type { AttributesWithParent, L1BlockRef } from '../../../../../src/main/node/derive/types.js';
import type { DerivationL1Event } from '../../../../../src/main/node/driver/driver.js';
import { EngineController } from '../../../../../src/main/node/engine/engineController.js';
import { type Interop, startInterop } from '../../../../../src/main/node/interop/setup.js';
import type { L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { decodeDepositTx } from '../../../../../src/main/primitives/tx/deposit/deposit.js';
import { FakeL1 } from '../derive/l1Fake.js';
import { attrs, FakeEngine, GENESIS_L1, GENESIS_L2, l1Hash, testConfig } from '../engine/fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const l1 = (n: number): L1BlockRef => ({
  hash: l1Hash(n),
  number: n,
  parentHash: n === 0 ? `0x${'00'.repeat(32)}` : l1Hash(n - 1),
  timestamp: 1000 + n * 12,
});

interface RpcReply {
  id?: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  method?: string;
  params?: { subscription: string; result: unknown };
}

/** The scripted supervisor: JSON-RPC over one WebSocket, notifications collected. */
class Supervisor {
  readonly notifications: unknown[] = [];
  #id = 0;
  readonly #pending = new Map<number, (r: RpcReply) => void>();
  #waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as RpcReply;
      if (msg.method === 'interop_subscription') {
        this.notifications.push(msg.params?.result);
        for (const w of this.#waiters.splice(0)) w();
        return;
      }
      if (msg.id !== undefined) this.#pending.get(msg.id)?.(msg);
    });
  }

  static connect(url: string, token: string | undefined): Promise<Supervisor> {
    const ws = new WebSocket(url, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new Supervisor(ws)));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += String(c);
        });
        res.on('end', () => reject(new Error(`${res.statusCode} ${body.trim()}`)));
      });
      ws.once('error', reject);
    });
  }

  call(method: string, params: unknown[] = []): Promise<RpcReply> {
    const id = ++this.#id;
    return new Promise((resolve) => {
      this.#pending.set(id, resolve);
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  async result(method: string, params: unknown[] = []): Promise<unknown> {
    const r = await this.call(method, params);
    if (r.error) throw new Error(`${method}: ${r.error.code} ${r.error.message}`);
    return r.result;
  }

  async waitFor(count: number): Promise<void> {
    const deadline = Date.now() + 5000;
    while (this.notifications.length < count) {
      if (Date.now() > deadline) throw new Error(`only ${this.notifications.length} notifications`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close(): void {
    this.ws.close();
  }
}

describe('interop managed mode (scripted supervisor)', () => {
  const cfg = testConfig({ interop_time: 0 });
  let dir: string;
  let jwtPath: string;
  let engine: FakeEngine;
  let ctrl: EngineController;
  let lifecycle: Lifecycle;
  let interop: Interop;
  let genesis: L2BlockRef;
  let origin: L1BlockRef | undefined;
  let resets: number;
  let resetListener: ((reason: string) => void) | undefined;
  let secret: Uint8Array;
  let sup: Supervisor | undefined;

  const derived = (parent: L2BlockRef, l1Number: number, seq: number): AttributesWithParent => ({
    attributes: attrs(cfg, parent, l1Number, seq, []),
    parent,
    derivedFrom: l1(l1Number + 1),
    isLastInSpan: true,
  });

  async function start(
    extraArgs: string[] = [],
    managedL1?: {
      onDerivationL1: (listener: (e: DerivationL1Event) => void) => () => void;
      wake: () => void;
      traversal: { provideNextL1(next: L1BlockRef): void };
    },
  ): Promise<void> {
    const settings = parseSettings(NODE_PROGRAM, {
      argv: [
        '--interop.rpc.addr',
        '127.0.0.1',
        '--interop.rpc.port',
        '0',
        '--interop.jwt-secret',
        jwtPath,
        ...extraArgs,
      ],
      env: {},
    });
    interop = await startInterop({
      options: replicaOptions(settings).interop,
      config: cfg,
      logger,
      lifecycle,
      engine,
      controller: ctrl,
      driver: {
        runExclusive: (fn) => fn(),
        requestReset: () => void resets++,
        onReset: (listener) => {
          resetListener = listener;
          return () => {
            resetListener = undefined;
          };
        },
        ...(managedL1 === undefined ? {} : { onDerivationL1: managedL1.onDerivationL1, wake: managedL1.wake }),
      },
      traversal: managedL1?.traversal,
      l1: {
        blockRefByHash: async (hash) => {
          for (let n = 0; n < 10; n++) if (l1(n).hash === hash) return l1(n);
          throw new Error(`L1 block ${hash} not found`);
        },
      },
      derivationOrigin: () => origin,
    });
    secret = Uint8Array.from(Buffer.from(readFileSync(jwtPath, 'utf8').trim().slice(2), 'hex'));
  }

  const url = () => interop.rpcAddress?.wsUrl ?? '';
  const connect = async () => {
    sup = await Supervisor.connect(url(), signJwt(secret));
    return sup;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tern-interop-'));
    jwtPath = join(dir, 'interop-jwt.txt');
    engine = new FakeEngine(cfg);
    ctrl = new EngineController(cfg, engine, { logger });
    genesis = await engine.l2BlockRefByHash(GENESIS_L2);
    await ctrl.reset({ unsafe: genesis, safe: genesis, finalized: genesis });
    lifecycle = new Lifecycle(logger);
    origin = undefined;
    resets = 0;
  });

  afterEach(async () => {
    sup?.close();
    sup = undefined;
    await lifecycle.stop('test done');
  });

  it('writes a new JWT secret (mode 0600) and answers interop_chainID only with a valid token', async () => {
    await start();
    expect(statSync(jwtPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(jwtPath, 'utf8')).toMatch(/^0x[0-9a-f]{64}\n$/);
    expect(interop.rpcAddress?.wsUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+/);

    const s = await connect();
    expect(await s.result('interop_chainID')).toBe('901');

    await expect(Supervisor.connect(url(), undefined)).rejects.toThrow('401 missing token');
    await expect(Supervisor.connect(url(), signJwt(new Uint8Array(32).fill(7)))).rejects.toThrow(
      '401 signature is invalid',
    );
    const stale = signJwt(secret, { iat: Math.floor(Date.now() / 1000) - 3600 });
    await expect(Supervisor.connect(url(), stale)).rejects.toThrow('401 stale token');
    // WebSocket only: plain HTTP JSON-RPC is not served.
    const res = await fetch(url().replace('ws://', 'http://'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${signJwt(secret)}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interop_chainID', params: [] }),
    });
    expect(res.status).toBe(404);
  });

  it('replaces an empty secret file and keeps an existing secret', async () => {
    writeFileSync(jwtPath, '');
    await start();
    const first = readFileSync(jwtPath, 'utf8');
    expect(first).toMatch(/^0x[0-9a-f]{64}\n$/);
    await lifecycle.stop('restart');
    lifecycle = new Lifecycle(logger);
    await start();
    expect(readFileSync(jwtPath, 'utf8')).toBe(first);
    expect(await (await connect()).result('interop_chainID')).toBe('901');
  });

  it('refuses a bad secret file and --interop.rpc.addr without --interop.jwt-secret', async () => {
    writeFileSync(jwtPath, 'not hex');
    await expect(start()).rejects.toThrow(`interop JWT secret file ${jwtPath} is not hex`);
    const settings = parseSettings(NODE_PROGRAM, { argv: ['--interop.rpc.addr', '127.0.0.1'], env: {} });
    await expect(
      startInterop({
        options: replicaOptions(settings).interop,
        config: cfg,
        logger,
        lifecycle,
        engine,
        controller: ctrl,
        driver: { runExclusive: (fn) => fn(), requestReset: () => undefined },
        l1: { blockRefByHash: async () => l1(0) },
        derivationOrigin: () => undefined,
      }),
    ).rejects.toThrow('--interop.rpc.addr needs --interop.jwt-secret');
  });

  it('is off when --interop.rpc.addr is empty, yet still reads the dependency set', async () => {
    const ds = join(dir, 'depset.json');
    writeFileSync(ds, JSON.stringify({ dependencies: { '901': { chainIndex: 1 } } }));
    const settings = parseSettings(NODE_PROGRAM, { argv: ['--interop.dependency-set', ds], env: {} });
    const { readDependencySet } = await import('../../../../../src/main/node/interop/setup.js');
    const set = readDependencySet(replicaOptions(settings).interop, logger);
    expect(set?.chains()).toEqual([901n]);
    const off = await startInterop(
      {
        options: replicaOptions(settings).interop,
        config: cfg,
        logger,
        lifecycle,
        engine,
        controller: ctrl,
        driver: { runExclusive: (fn) => fn(), requestReset: () => undefined },
        l1: { blockRefByHash: async () => l1(0) },
        derivationOrigin: () => undefined,
      },
      set,
    );
    expect(off.managed).toBeUndefined();
    expect(off.rpcAddress).toBeUndefined();
  });

  it("uses the registry's [interop] section of a --network chain when no file is given; the file wins", async () => {
    const { readDependencySet } = await import('../../../../../src/main/node/interop/setup.js');
    const { registryNetwork } = await import('../../../../../src/main/networks/registry.js');
    // rehearsal-0-bn-0 and -1 list each other (superchain-registry configs/rehearsal-0-bn/*.toml [interop]).
    for (const network of ['rehearsal-0-bn-0-rehearsal-0-bn', 'rehearsal-0-bn-1-rehearsal-0-bn']) {
      const deps = registryNetwork(network)?.chain.interop?.dependencies;
      const none = parseSettings(NODE_PROGRAM, { argv: [], env: {} });
      const set = readDependencySet(replicaOptions(none).interop, logger, { network, dependencies: deps });
      expect(set?.chains(), network).toEqual([420120009n, 420120010n]);
      expect(set?.dependency(420120009n)).toEqual({ chainIndex: 0, activationTime: 0n, historyMinTime: 0n });
      expect(set?.chainIdFromIndex(1)).toBe(420120010n);
      expect(set?.messageExpiryWindow()).toBe(604_800n);
    }
    // A chain without an [interop] section has none; an explicit file replaces the registry's.
    const op = registryNetwork('op-sepolia');
    expect(op).toBeDefined();
    const none = parseSettings(NODE_PROGRAM, { argv: [], env: {} });
    expect(
      readDependencySet(replicaOptions(none).interop, logger, {
        network: 'op-sepolia',
        dependencies: op?.chain.interop?.dependencies,
      }),
    ).toBeUndefined();
    const ds = join(dir, 'depset-override.json');
    writeFileSync(ds, JSON.stringify({ dependencies: { '420120009': { chainIndex: 7 } } }));
    const file = parseSettings(NODE_PROGRAM, { argv: ['--interop.dependency-set', ds], env: {} });
    const fromFile = readDependencySet(replicaOptions(file).interop, logger, {
      network: 'rehearsal-0-bn-0-rehearsal-0-bn',
      dependencies: { '420120009': {}, '420120010': {} },
    });
    expect(fromFile?.chains()).toEqual([420120009n]);
    expect(fromFile?.dependency(420120009n)?.chainIndex).toBe(7);
  });

  it('drives derivation with provideL1: exhaustL1 out, the next L1 block in, derivationOriginUpdate out', async () => {
    // A managed L1 traversal (derivation's first stage) over a small L1; the "driver" steps it when woken and
    // reports the outcome, as driver.ts does after each derivation step.
    const chain = new FakeL1(100, 1_000_000);
    for (let i = 0; i < 4; i++) chain.add();
    const traversal = new L1Traversal(cfg, chain, {}, true);
    traversal.reset(chain.block(100).ref, systemConfigFromGenesis(cfg.genesis.systemConfig));
    let listener: ((e: DerivationL1Event) => void) | undefined;
    let steps = 0;
    const step = async () => {
      steps++;
      const moved = await traversal.advanceOrigin();
      const o = traversal.origin() as L1BlockRef;
      listener?.({ kind: moved ? 'originAdvanced' : 'exhausted', origin: o, lastL2: genesis });
    };
    await start([], {
      onDerivationL1: (l) => {
        listener = l;
        return () => {
          listener = undefined;
        };
      },
      wake: () => void step(),
      traversal,
    });
    const s = await connect();
    await s.result('interop_subscribe', ['events']);
    const g = { hash: genesis.hash, number: 0, parentHash: genesis.parentHash, timestamp: genesis.timestamp };
    const ref = (n: number) => chain.block(n).ref;

    // Derivation read L1 block 100 and has nothing more: the supervisor hears it once.
    await step();
    await step();
    await s.waitFor(1);
    expect(s.notifications).toEqual([{ data: { exhaustL1: { source: ref(100), derived: g } } }]);
    // It never looked for L1 block 101 itself.
    expect(chain.calls).toEqual([]);

    // The supervisor hands over block 101: derivation moves there and says so, then runs out again.
    expect(await s.result('interop_provideL1', [ref(101)])).toBeNull();
    await s.waitFor(2);
    expect(s.notifications[1]).toEqual({
      data: { derivationUpdate: { source: ref(101), derived: g }, derivationOriginUpdate: ref(101) },
    });
    expect(traversal.origin()).toEqual(ref(101));
    expect(chain.calls).toEqual([`receipts:${ref(101).hash}`]);
    await step();
    await s.waitFor(3);
    expect(s.notifications[2]).toEqual({ data: { exhaustL1: { source: ref(101), derived: g } } });

    // A block that is not the next one is dropped; derivation stays at 101 and sends nothing new.
    const before = steps;
    expect(await s.result('interop_provideL1', [ref(103)])).toBeNull();
    while (steps === before) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    expect(traversal.origin()).toEqual(ref(101));
    expect(s.notifications).toHaveLength(3);
    // After a derivation reset the same L1 block is reported again.
    resetListener?.('reorg');
    await step();
    await s.waitFor(5);
    expect(s.notifications.slice(3)).toEqual([
      { data: { reset: 'reorg' } },
      { data: { exhaustL1: { source: ref(101), derived: g } } },
    ]);
  });

  it('sends events for new unsafe and derived blocks', async () => {
    await start();
    const s = await connect();
    const subId = await s.result('interop_subscribe', ['events']);
    expect(subId).toMatch(/^0x[0-9a-f]+$/);

    // An unsafe block (as the sequencer or gossip would insert it).
    const built = await ctrl.buildBlock(genesis, attrs(cfg, genesis, 0, 1, []), { safe: false, derived: false });
    if (!built.ok) throw new Error(built.reason);
    await s.waitFor(1);
    expect(s.notifications[0]).toEqual({
      data: {
        unsafeBlock: {
          hash: built.ref.hash,
          number: 1,
          parentHash: GENESIS_L2,
          timestamp: built.ref.timestamp,
        },
      },
    });

    // Derivation consolidates it: local-safe, derived from the L1 block derivation is reading.
    origin = l1(1);
    const out = await ctrl.processAttributes(derived(genesis, 0, 1));
    expect(out.kind).toBe('consolidated');
    await s.waitFor(2);
    expect(s.notifications[1]).toEqual({
      data: {
        derivationUpdate: {
          source: l1(1),
          derived: { hash: built.ref.hash, number: 1, parentHash: GENESIS_L2, timestamp: built.ref.timestamp },
        },
      },
    });

    // Pulling closes the subscription (the two ways of reading are exclusive): a close entry is sent.
    const pulled = await s.call('interop_pullEvent');
    expect(pulled.error).toEqual({ code: -39001, message: 'out of events' });
    await s.waitFor(3);
    expect(s.notifications[2]).toEqual({ data: null, close: true });
    // Derivation resets reach the supervisor as `reset` events with the reason.
    resetListener?.('L1 reorg: block 7 replaced');
    // Later events are queued for pulling.
    const next = await ctrl.buildBlock(built.ref, attrs(cfg, built.ref, 0, 2, []), { safe: false, derived: false });
    if (!next.ok) throw new Error(next.reason);
    expect(await s.result('interop_pullEvent')).toEqual({ reset: 'L1 reorg: block 7 replaced' });
    const ev = (await s.result('interop_pullEvent')) as { unsafeBlock: { number: number } };
    expect(ev.unsafeBlock.number).toBe(2);
    expect(s.notifications).toHaveLength(3);
  });

  it("follows the supervisor's cross-unsafe, cross-safe and finalized decisions", async () => {
    await start();
    const s = await connect();
    // Blocks 1 and 2 derived (local-safe), block 3 unsafe.
    origin = l1(1);
    const o1 = await ctrl.processAttributes(derived(genesis, 0, 1));
    const b1 = ctrl.heads.safe;
    const o2 = await ctrl.processAttributes(derived(b1, 0, 2));
    const b2 = ctrl.heads.safe;
    expect([o1.kind, o2.kind, b2.number]).toEqual(['inserted', 'inserted', 2]);
    const b3r = await ctrl.buildBlock(b2, attrs(cfg, b2, 0, 3, []), { safe: false, derived: false });
    if (!b3r.ok) throw new Error(b3r.reason);
    const managed = interop.managed;
    if (!managed) throw new Error('managed mode is off');
    const status0 = managed.syncStatus({
      currentL1: undefined,
      currentL1Finalized: undefined,
      headL1: undefined,
      safeL1: undefined,
      finalizedL1: undefined,
      unsafeL2: ctrl.heads.unsafe,
      safeL2: ctrl.heads.safe,
      finalizedL2: ctrl.heads.finalized,
      pendingSafeL2: ctrl.heads.pendingSafe,
      crossUnsafeL2: ctrl.heads.unsafe,
      localSafeL2: ctrl.heads.safe,
    });
    expect(status0.safeL2?.number).toBe(2);

    expect(await s.result('interop_updateCrossUnsafe', [{ hash: b2.hash, number: 2 }])).toBeNull();
    expect(managed.crossUnsafe?.hash).toBe(b2.hash);

    expect(
      await s.result('interop_updateCrossSafe', [
        { hash: b1.hash, number: 1 },
        { hash: l1(1).hash, number: 1 },
      ]),
    ).toBeNull();
    expect(managed.crossSafe?.hash).toBe(b1.hash);
    // The engine's forkchoice now carries the supervisor's cross-safe block, not the locally derived block 2.
    expect(engine.safe).toBe(b1.hash);
    expect(engine.head).toBe(b3r.ref.hash);

    expect(await s.result('interop_updateFinalized', [{ hash: b1.hash, number: 1 }])).toBeNull();
    expect(engine.finalized).toBe(b1.hash);

    const status = managed.syncStatus({
      currentL1: undefined,
      currentL1Finalized: undefined,
      headL1: undefined,
      safeL1: undefined,
      finalizedL1: undefined,
      unsafeL2: ctrl.heads.unsafe,
      safeL2: ctrl.heads.safe,
      finalizedL2: ctrl.heads.finalized,
      pendingSafeL2: ctrl.heads.pendingSafe,
      crossUnsafeL2: ctrl.heads.unsafe,
      localSafeL2: ctrl.heads.safe,
    });
    expect(status.unsafeL2?.number).toBe(3);
    expect(status.crossUnsafeL2?.number).toBe(2);
    expect(status.localSafeL2?.number).toBe(2);
    expect(status.safeL2?.number).toBe(1);
    expect(status.finalizedL2?.number).toBe(1);

    // Unknown blocks are errors with the reason.
    const unknown = await s.call('interop_updateCrossUnsafe', [{ hash: `0x${'ab'.repeat(32)}`, number: 9 }]);
    expect(unknown.error?.message).toMatch(/^failed to get L2BlockRef: L2 block 0xabab.* not found/);
    const badL1 = await s.call('interop_updateCrossSafe', [
      { hash: b1.hash, number: 1 },
      { hash: `0x${'cd'.repeat(32)}`, number: 1 },
    ]);
    expect(badL1.error?.message).toMatch(/^failed to get L1BlockRef/);

    // Reset: every target must be canonical here (op-node's codes), then the heads move and derivation restarts.
    const id = (r: L2BlockRef) => ({ hash: r.hash, number: r.number });
    const conflict = await s.call('interop_reset', [
      id(b2),
      id(b2),
      id(b1),
      { hash: `0x${'ef'.repeat(32)}`, number: 1 },
      id(genesis),
    ]);
    expect(conflict.error?.code).toBe(-39002);
    expect(conflict.error?.message).toBe('conflicting block');
    expect(conflict.error?.data).toMatchObject({ hash: b1.hash, number: 1 });
    const missing = await s.call('interop_reset', [{ hash: b2.hash, number: 40 }, id(b2), id(b1), id(b1), id(genesis)]);
    expect(missing.error).toEqual({ code: -39001, message: 'unsafe reset target not found' });
    expect(await s.result('interop_reset', [id(b2), id(b1), id(b1), id(genesis), id(genesis)])).toBeNull();
    expect(resets).toBe(1);
    expect(ctrl.heads.safe.hash).toBe(b1.hash);
    expect(ctrl.heads.unsafe.hash).toBe(b3r.ref.hash);
    expect(engine.safe).toBe(GENESIS_L2);
    expect(managed.crossUnsafe?.hash).toBe(b1.hash);
  });

  it("answers op-node's queries: block refs, outputs by timestamp, anchor point, receipts, provideL1", async () => {
    await start();
    const s = await connect();
    origin = l1(1);
    await ctrl.processAttributes(derived(genesis, 0, 1));
    const b1 = ctrl.heads.safe;
    expect(await s.result('interop_blockRefByNumber', [1])).toEqual({
      hash: b1.hash,
      number: 1,
      parentHash: GENESIS_L2,
      timestamp: 1002,
    });
    expect(await s.result('interop_l2BlockRefByTimestamp', [1002])).toEqual({
      hash: b1.hash,
      number: 1,
      parentHash: GENESIS_L2,
      timestamp: 1002,
      l1origin: { hash: GENESIS_L1, number: 0 },
      sequenceNumber: 1,
    });
    const misaligned = await s.call('interop_l2BlockRefByTimestamp', [1003]);
    expect(misaligned.error?.message).toContain('not aligned with the L2 block time');
    const output = (await s.result('interop_outputV0AtTimestamp', [1002])) as Record<string, string>;
    expect(Object.keys(output)).toEqual(['StateRoot', 'MessagePasserStorageRoot', 'BlockHash']);
    expect(output.BlockHash).toBe(b1.hash);
    expect(output.MessagePasserStorageRoot).toBe(`0x${'09'.repeat(32)}`);
    expect(await s.result('interop_pendingOutputV0AtTimestamp', [1002])).toEqual(output);
    expect(await s.result('interop_anchorPoint')).toEqual({
      source: l1(0),
      derived: { hash: GENESIS_L2, number: 0, parentHash: genesis.parentHash, timestamp: 1000 },
    });
    const receipts = await s.call('interop_fetchReceipts', [b1.hash]);
    expect(receipts.error).toEqual({ code: -32603, message: 'receipts are not available from this engine' });
    expect(
      await s.result('interop_provideL1', [{ hash: l1(2).hash, number: 2, parentHash: l1(1).hash, timestamp: 1024 }]),
    ).toBeNull();
    expect(interop.managed?.providedL1?.number).toBe(2);
    // Go's uint64 arguments are JSON numbers.
    const hexArg = await s.call('interop_blockRefByNumber', ['0x1']);
    expect(hexArg.error?.code).toBe(-32602);
    expect(hexArg.error?.message).toContain('cannot unmarshal string into Go value of type uint64');
  });

  it('invalidateBlock replaces a block by a deposits-only block carrying the optimistic-block deposit', async () => {
    await start();
    const s = await connect();
    origin = l1(1);
    const userTx = Uint8Array.of(0x02, 0xaa);
    await ctrl.processAttributes({ ...derived(genesis, 0, 1), attributes: attrs(cfg, genesis, 0, 1, [userTx]) });
    const b1 = ctrl.heads.safe;
    await ctrl.processAttributes(derived(b1, 0, 2));
    const b2 = ctrl.heads.safe;
    const out1 = await engine.outputV0AtBlock(1);
    await s.result('interop_subscribe', ['events']);

    expect(
      await s.result('interop_invalidateBlock', [{ hash: b1.hash, number: 1, timestamp: b1.timestamp }]),
    ).toBeNull();
    await s.waitFor(2);
    const replaced = s.notifications.find((n) => (n as { data: Record<string, unknown> }).data.replaceBlock) as {
      data: {
        replaceBlock: { replacement: { hash: string; number: number; parentHash: string }; invalidated: string };
      };
    };
    const { replacement, invalidated } = replaced.data.replaceBlock;
    expect(invalidated).toBe(b1.hash);
    expect(replacement.number).toBe(1);
    expect(replacement.parentHash).toBe(GENESIS_L2);
    expect(replacement.hash).not.toBe(b1.hash);
    // The replacement is canonical and local-safe; block 2, built on the invalid block, is gone.
    expect(engine.head).toBe(replacement.hash);
    expect(ctrl.heads.safe.hash).toBe(replacement.hash);
    expect((await engine.l2BlockRefByNumber(1)).hash).toBe(replacement.hash);
    await expect(engine.l2BlockRefByNumber(2)).rejects.toThrow();
    expect(b2.number).toBe(2);

    // Its transactions: the invalid block's deposits (not the user transaction), then the optimistic-block deposit
    // per the interop derivation spec, built here by hand.
    const block = await engine.payloadByHash(replacement.hash);
    const txs = block.payload.transactions;
    const invalidBlock = await engine.payloadByHash(b1.hash);
    expect(txs.slice(0, -1)).toEqual(invalidBlock.payload.transactions.filter((t) => t[0] === 0x7e));
    expect(txs.some((t) => t[0] === 0x02)).toBe(false);
    const dep = decodeDepositTx(txs[txs.length - 1] as Uint8Array);
    const preimage = new Uint8Array(128);
    preimage.set(out1.stateRoot, 32);
    preimage.set(out1.messagePasserStorageRoot, 64);
    preimage.set(out1.blockHash, 96);
    const domain = new Uint8Array(64);
    domain[31] = 4;
    domain.set(keccak256(preimage), 32);
    expect(Buffer.from(dep.from).toString('hex')).toBe('deaddeaddeaddeaddeaddeaddeaddeaddead0002');
    expect(dep.to).toEqual(new Uint8Array(20));
    expect([dep.mint, dep.value, dep.gasLimit, dep.isSystemTx]).toEqual([0n, 0n, 36_000n, false]);
    expect(dep.data).toEqual(preimage);
    expect(dep.sourceHash).toEqual(keccak256(domain));

    // The pending output at that time is the replaced block's; the canonical output is the replacement's.
    const pending = (await s.result('interop_pendingOutputV0AtTimestamp', [b1.timestamp])) as Record<string, string>;
    expect(pending.BlockHash).toBe(b1.hash);
    expect(pending.StateRoot).toBe(`0x${Buffer.from(out1.stateRoot).toString('hex')}`);
    const canonical = (await s.result('interop_outputV0AtTimestamp', [b1.timestamp])) as Record<string, string>;
    expect(canonical.BlockHash).toBe(replacement.hash);

    const unknown = await s.call('interop_invalidateBlock', [
      { hash: `0x${'ab'.repeat(32)}`, number: 1, timestamp: 1002 },
    ]);
    expect(unknown.error?.code).toBe(-32000);
    expect(unknown.error?.message).toMatch(/^failed to get block: /);
  });

  it('refuses anchorPoint when interop is not active at genesis (-39003)', async () => {
    const late = testConfig({ interop_time: 5000 });
    engine = new FakeEngine(late);
    ctrl = new EngineController(late, engine, { logger });
    const g = await engine.l2BlockRefByHash(GENESIS_L2);
    await ctrl.reset({ unsafe: g, safe: g, finalized: g });
    const settings = parseSettings(NODE_PROGRAM, {
      argv: ['--interop.rpc.addr', '127.0.0.1', '--interop.rpc.port', '0', '--interop.jwt-secret', jwtPath],
      env: {},
    });
    interop = await startInterop({
      options: replicaOptions(settings).interop,
      config: late,
      logger,
      lifecycle,
      engine,
      controller: ctrl,
      driver: { runExclusive: (fn) => fn(), requestReset: () => undefined },
      l1: { blockRefByHash: async () => l1(0) },
      derivationOrigin: () => l1(1),
    });
    secret = Uint8Array.from(Buffer.from(readFileSync(jwtPath, 'utf8').trim().slice(2), 'hex'));
    const s = await connect();
    expect((await s.call('interop_anchorPoint')).error).toEqual({
      code: -39003,
      message: 'Interop inactive at genesis',
    });
    // Pre-interop blocks send no events.
    await s.result('interop_subscribe', ['events']);
    const built = await ctrl.buildBlock(g, attrs(late, g, 0, 1, []), { safe: false, derived: false });
    expect(built.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(s.notifications).toEqual([]);
  });
});
