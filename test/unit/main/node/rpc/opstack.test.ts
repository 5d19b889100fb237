// The experimental opstack block-building namespace over HTTP, against the in-memory engine the sequencer tests
// use: gated by --experimental.sequencer-api (through setupSequencing), a block opened, sealed, signed with the
// local block signer, committed as the unsafe head and published as its gossip message, and op-node's error codes.
import { afterEach, describe, expect, it } from 'vitest';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { RpcClient } from '../../../../../src/main/common/rpc/client.js';
import type { HttpRpcServer } from '../../../../../src/main/common/rpc/http.js';
import { createNodeRpcServer } from '../../../../../src/main/common/rpc/listeners.js';
import { RpcRegistry } from '../../../../../src/main/common/rpc/registry.js';
import { fromHex, toHex } from '../../../../../src/main/node/derive/types.js';
import type { Driver } from '../../../../../src/main/node/driver/driver.js';
import { toEngineAttributes } from '../../../../../src/main/node/engine/attributes.js';
import { EngineController } from '../../../../../src/main/node/engine/engineController.js';
import type { PayloadAttributes } from '../../../../../src/main/node/engine/interface.js';
import type { L1Source } from '../../../../../src/main/node/l1/interface.js';
import { type PublishedBlock, registerOpstackApi } from '../../../../../src/main/node/rpc/opstack.js';
import {
  type SequencingOptions,
  sequencingDefaults,
  setupSequencing,
} from '../../../../../src/main/node/sequencer/setup.js';
import { gossipPayload } from '../../../../../src/main/node/signer/gossipPayload.js';
import { LocalSigner } from '../../../../../src/main/node/signer/local.js';
import { signGossipBlock } from '../../../../../src/main/node/signer/setup.js';
import { blockSigningHash, recoverSigner } from '../../../../../src/main/node/signer/signingHash.js';
import type { L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { executionPayloadFromJson, executionPayloadToJson } from '../../../../../src/main/protocol/engine/types.js';
import { attrs, FakeEngine, GENESIS_L2, INVALID_TX, testConfig } from '../engine/fakeEngine.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const KEY = `0x${'42'.repeat(32)}`;

let server: HttpRpcServer | undefined;
let client: RpcClient | undefined;
let lifecycle: Lifecycle | undefined;
afterEach(async () => {
  await client?.close();
  await server?.stop();
  await lifecycle?.stop('test done');
  server = undefined;
  client = undefined;
  lifecycle = undefined;
});

/** A serial lock standing in for Driver.runExclusive, counting its uses. */
function lock() {
  let chain: Promise<unknown> = Promise.resolve();
  const state = { runs: 0 };
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    state.runs++;
    const run = chain.then(fn, fn);
    chain = run.catch(() => undefined);
    return run;
  };
  return { exclusive, state };
}

async function engineAtGenesis() {
  const cfg = testConfig();
  const engine = new FakeEngine(cfg);
  const controller = new EngineController(cfg, engine, { logger });
  const genesis = await engine.l2BlockRefByHash(GENESIS_L2);
  await controller.reset({ unsafe: genesis, safe: genesis, finalized: genesis });
  return { cfg, engine, controller, genesis };
}

async function listen(registry: RpcRegistry) {
  server = createNodeRpcServer({ host: '127.0.0.1', port: 0 }, { registry, logger });
  const { url } = await server.start();
  client = new RpcClient({ url });
  return client;
}

/** The engine-API JSON of payload attributes, as op-service/eth.PayloadAttributes marshals them. */
function attrsJson(a: PayloadAttributes): Record<string, unknown> {
  const hex = (b: Uint8Array) => toHex(b) as string;
  const q = (n: bigint) => `0x${n.toString(16)}`;
  return {
    timestamp: q(a.timestamp),
    prevRandao: hex(a.prevRandao),
    suggestedFeeRecipient: hex(a.suggestedFeeRecipient),
    withdrawals: a.withdrawals?.map((w) => ({
      index: q(w.index),
      validatorIndex: q(w.validatorIndex),
      address: hex(w.address),
      amount: q(w.amount),
    })),
    parentBeaconBlockRoot: a.parentBeaconBlockRoot && hex(a.parentBeaconBlockRoot),
    transactions: a.transactions?.map(hex),
    noTxPool: a.noTxPool,
    gasLimit: a.gasLimit === undefined ? undefined : q(a.gasLimit),
  };
}

const blockId = (r: L2BlockRef) => ({ hash: r.hash, number: r.number });

async function serveDirect() {
  const env = await engineAtGenesis();
  const published: PublishedBlock[] = [];
  const l = lock();
  const registry = new RpcRegistry().registerNamespace('optimism', { version: () => 'v0' });
  registerOpstackApi(registry, {
    config: env.cfg,
    controller: env.controller,
    exclusive: l.exclusive,
    publish: async (b) => void published.push(b),
  });
  const rpc = await listen(registry);
  return { ...env, rpc, published, lock: l.state };
}

describe('opstack namespace gating (--experimental.sequencer-api)', () => {
  /** The sequencing options with the flag this test turns on. */
  function options(values: Record<string, unknown>): SequencingOptions {
    return {
      ...sequencingDefaults,
      sequencerApi: values['experimental.sequencer-api'] === true,
    };
  }

  async function viaSetup(values: Record<string, unknown>) {
    const { cfg, engine, controller, genesis } = await engineAtGenesis();
    lifecycle = new Lifecycle(logger);
    const registry = new RpcRegistry().registerNamespace('optimism', { version: () => 'v0' });
    const l = lock();
    await setupSequencing({
      options: options(values),
      config: cfg,
      logger,
      lifecycle,
      l1: {} as L1Source,
      l1Head: () => undefined,
      engine,
      controller,
      driver: { runExclusive: l.exclusive, requestReset: () => undefined } as unknown as Driver,
      registry,
      onFatal: () => undefined,
      // Block gossip exists unless --p2p.disable.
      gossip: values['p2p.disable'] === true ? undefined : { publish: () => undefined },
    });
    return { rpc: await listen(registry), cfg, genesis, registry, lock: l.state };
  }

  it('is unreachable without the flag', async () => {
    const { rpc, registry, cfg, genesis } = await viaSetup({});
    expect(registry.namespaces()).toEqual(['optimism']);
    expect(await rpc.call('optimism_version')).toBe('v0');
    const a = attrsJson(toEngineAttributes(attrs(cfg, genesis, 0, 1)));
    for (const [m, p] of [
      ['opstack_openBlockV1', [blockId(genesis), a]],
      ['opstack_sealBlockV1', [{ id: '0x0000000000000001', timestamp: 1002 }]],
      ['opstack_cancelBlockV1', [{ id: '0x0000000000000001', timestamp: 1002 }]],
      ['opstack_commitBlockV1', [{}]],
      ['opstack_publishBlockV1', [{}]],
    ] as const) {
      await expect(rpc.call(m, [...p])).rejects.toMatchObject({ code: -32601 });
    }
  });

  it('is served with the flag, under the driver lock, and publishing obeys --p2p.disable', async () => {
    const { rpc, cfg, genesis, lock: l } = await viaSetup({ 'experimental.sequencer-api': true });
    const a = toEngineAttributes(attrs(cfg, genesis, 0, 1));
    const info = await rpc.call<{ id: string; timestamp: number }>('opstack_openBlockV1', [
      blockId(genesis),
      attrsJson(a),
    ]);
    expect(info).toEqual({ id: expect.stringMatching(/^0x[0-9a-f]{16}$/), timestamp: 1002 });
    expect(l.runs).toBe(1);
    const env = await rpc.call<Record<string, unknown>>('opstack_sealBlockV1', [info]);
    const signer = new LocalSigner(KEY);
    const payload = executionPayloadFromJson(env.executionPayload);
    const { signature } = await signGossipBlock(cfg, signer, payload, fromHex(env.parentBeaconBlockRoot as string));
    const signed = { envelope: env, signature: toHex(signature) };
    expect(await rpc.call('opstack_commitBlockV1', [signed])).toBeNull();
    expect(await rpc.call('opstack_publishBlockV1', [signed])).toBeNull();
    expect(l.runs).toBe(3);
  });

  it('publishBlockV1 answers "P2P not enabled" with --p2p.disable', async () => {
    const { rpc, cfg, genesis } = await viaSetup({ 'experimental.sequencer-api': true, 'p2p.disable': true });
    const info = await rpc.call('opstack_openBlockV1', [
      blockId(genesis),
      attrsJson(toEngineAttributes(attrs(cfg, genesis, 0, 1))),
    ]);
    const env = await rpc.call<Record<string, unknown>>('opstack_sealBlockV1', [info]);
    const signed = { envelope: env, signature: `0x${'00'.repeat(64)}01` };
    await expect(rpc.call('opstack_publishBlockV1', [signed])).rejects.toMatchObject({
      code: -32000,
      message: 'P2P not enabled',
    });
  });
});

describe('opstack block building', () => {
  it('opens, seals, signs, commits and publishes a block', async () => {
    const { cfg, engine, controller, genesis, rpc, published } = await serveDirect();
    const derived = attrs(cfg, genesis, 0, 1);
    const info = await rpc.call<{ id: string; timestamp: number }>('opstack_openBlockV1', [
      blockId(genesis),
      attrsJson(toEngineAttributes(derived)),
    ]);
    expect(info.timestamp).toBe(genesis.timestamp + cfg.blockTime);

    // Sealing returns the envelope; the block is not canonical yet.
    const env = await rpc.call<{ executionPayload: unknown; parentBeaconBlockRoot: string }>('opstack_sealBlockV1', [
      info,
    ]);
    expect(env.parentBeaconBlockRoot).toBe(`0x${'00'.repeat(32)}`);
    const payload = executionPayloadFromJson(env.executionPayload);
    expect(payload.blockNumber).toBe(1n);
    expect(toHex(payload.parentHash)).toBe(genesis.hash);
    expect(payload.transactions.map((t) => toHex(t))).toEqual(derived.transactions.map((t) => toHex(t)));
    expect(controller.heads.unsafe.hash).toBe(genesis.hash);

    // The caller signs (op-test-sequencer's role) with the gossip scheme.
    const signer = new LocalSigner(KEY);
    const pbbr = fromHex(env.parentBeaconBlockRoot);
    const { signature, message } = await signGossipBlock(cfg, signer, payload, pbbr);
    const signed = { envelope: env, signature: toHex(signature) };

    expect(await rpc.call('opstack_commitBlockV1', [signed])).toBeNull();
    const head = controller.heads.unsafe;
    expect(head.number).toBe(1);
    expect(head.hash).toBe(toHex(payload.blockHash));
    expect(head.l1origin.number).toBe(0);
    expect(head.sequenceNumber).toBe(1);
    expect(engine.head).toBe(head.hash);
    expect(controller.heads.safe.hash).toBe(genesis.hash);

    expect(await rpc.call('opstack_publishBlockV1', [signed])).toBeNull();
    expect(published).toHaveLength(1);
    const pub = published[0] as PublishedBlock;
    expect(pub).toMatchObject({ version: 3, hash: head.hash, number: 1 });
    expect(toHex(pub.message)).toBe(toHex(message));
    // The published message verifies against the signer (rollup-node-p2p.md: sig ‖ payload).
    const { bytes } = gossipPayload(cfg, payload, pbbr);
    expect(recoverSigner(blockSigningHash(cfg.l2ChainId, bytes), pub.message.subarray(0, 65))).toBe(signer.address);

    // The next block builds on the committed one.
    const info2 = await rpc.call('opstack_openBlockV1', [
      blockId(head),
      attrsJson(toEngineAttributes(attrs(cfg, head, 0, 2))),
    ]);
    const env2 = await rpc.call<{ executionPayload: unknown }>('opstack_sealBlockV1', [info2]);
    expect(executionPayloadFromJson(env2.executionPayload).blockNumber).toBe(2n);
    await signer.close();
  });

  it('cancelBlockV1 drops a build job', async () => {
    const { cfg, genesis, rpc, controller } = await serveDirect();
    const info = await rpc.call('opstack_openBlockV1', [
      blockId(genesis),
      attrsJson(toEngineAttributes(attrs(cfg, genesis, 0, 1))),
    ]);
    expect(await rpc.call('opstack_cancelBlockV1', [info])).toBeNull();
    expect(controller.heads.unsafe.hash).toBe(genesis.hash);
  });
});

describe('opstack error codes', () => {
  it('a missing parent is a plain server error, as in op-node', async () => {
    const { cfg, genesis, rpc } = await serveDirect();
    const parent = { hash: `0x${'77'.repeat(32)}`, number: 5 };
    await expect(
      rpc.call('opstack_openBlockV1', [parent, attrsJson(toEngineAttributes(attrs(cfg, genesis, 0, 1)))]),
    ).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('failed to retrieve parent block') });
  });

  it('an unknown payload is -40120 for seal and cancel', async () => {
    const { rpc } = await serveDirect();
    const info = { id: '0x00000000000000ff', timestamp: 1002 };
    await expect(rpc.call('opstack_sealBlockV1', [info])).rejects.toMatchObject({
      code: -40120,
      message: 'unknown payload',
    });
    await expect(rpc.call('opstack_cancelBlockV1', [info])).rejects.toMatchObject({ code: -40120 });
  });

  it('other seal failures are -40199', async () => {
    const { rpc, engine } = await serveDirect();
    engine.getPayload = async () => {
      throw new Error('engine exploded');
    };
    await expect(
      rpc.call('opstack_sealBlockV1', [{ id: '0x0000000000000001', timestamp: 1002 }]),
    ).rejects.toMatchObject({ code: -40199, message: expect.stringContaining('failed to seal payload') });
  });

  it('open: a syncing engine is -40100, rejected attributes are -40101', async () => {
    const { cfg, genesis, rpc, engine } = await serveDirect();
    const a = attrsJson(toEngineAttributes(attrs(cfg, genesis, 0, 1)));
    const real = engine.forkchoiceUpdated.bind(engine);
    engine.forkchoiceUpdated = async () => ({
      payloadStatus: { status: 'SYNCING', latestValidHash: null, validationError: null },
      payloadId: null,
    });
    await expect(rpc.call('opstack_openBlockV1', [blockId(genesis), a])).rejects.toMatchObject({ code: -40100 });
    engine.forkchoiceUpdated = async () => ({
      payloadStatus: { status: 'INVALID', latestValidHash: null, validationError: 'bad attributes' },
      payloadId: null,
    });
    await expect(rpc.call('opstack_openBlockV1', [blockId(genesis), a])).rejects.toMatchObject({ code: -40101 });
    engine.forkchoiceUpdated = real;
    expect(await rpc.call('opstack_openBlockV1', [blockId(genesis), a])).toMatchObject({ timestamp: 1002 });
  });

  it('commit: a block the engine finds invalid is -40110', async () => {
    const { cfg, genesis, rpc, controller } = await serveDirect();
    const info = await rpc.call('opstack_openBlockV1', [
      blockId(genesis),
      attrsJson(toEngineAttributes(attrs(cfg, genesis, 0, 1, [INVALID_TX]))),
    ]);
    const env = await rpc.call<{ executionPayload: unknown }>('opstack_sealBlockV1', [info]);
    const signed = { envelope: env, signature: `0x${'00'.repeat(64)}01` };
    await expect(rpc.call('opstack_commitBlockV1', [signed])).rejects.toMatchObject({
      code: -40110,
      message: expect.stringContaining('execution invalid'),
    });
    expect(controller.heads.unsafe.hash).toBe(genesis.hash);
  });

  it('malformed params are -32602', async () => {
    const { cfg, genesis, rpc } = await serveDirect();
    const a = attrsJson(toEngineAttributes(attrs(cfg, genesis, 0, 1)));
    await expect(rpc.call('opstack_openBlockV1', [{ hash: genesis.hash, number: '0x0' }, a])).rejects.toMatchObject({
      code: -32602,
    });
    await expect(rpc.call('opstack_sealBlockV1', [{ id: '0x01', timestamp: 1002 }])).rejects.toMatchObject({
      code: -32602,
    });
    const env = { executionPayload: executionPayloadToJson((await new FakeEngine(cfg).payloadByNumber(0)).payload) };
    await expect(rpc.call('opstack_commitBlockV1', [{ envelope: env, signature: '0x00' }])).rejects.toMatchObject({
      code: -32602,
    });
    await expect(rpc.call('opstack_openBlockV1', [blockId(genesis)])).rejects.toMatchObject({ code: -32602 });
  });
});
