// tern-node's progress lines and the op-node metrics fed since: "Sync progress" from the engine controller, the L1
// head/safe/finalized lines and the sync-status line from the driver, refs_* by type, the reorg depth, derivation
// drops, and the L1 client's rpc_client_* by method (batches as <batch>).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { dropReasonLabel, OpNodeMetrics } from '../../../../../src/main/common/metrics/opNode.js';
import { refString, syncProgressReason } from '../../../../../src/main/common/metrics/progress.js';
import { MetricsRegistry } from '../../../../../src/main/common/metrics/registry.js';
import type { StepResult } from '../../../../../src/main/node/derive/pipeline.js';
import type { AttributesWithParent, BlockId } from '../../../../../src/main/node/derive/types.js';
import { type Derivation, Driver } from '../../../../../src/main/node/driver/driver.js';
import { EngineController } from '../../../../../src/main/node/engine/engineController.js';
import { L1Client } from '../../../../../src/main/node/l1/client.js';
import { DisabledSafeDb } from '../../../../../src/main/node/safedb/safedb.js';
import type { L1BlockRef, L2BlockRef } from '../../../../../src/main/primitives/rollup/blockRef.js';
import { waitUntil } from '../../../../helpers/waitUntil.js';
import { attrs, FakeEngine, l1Hash, testConfig } from '../engine/fakeEngine.js';

type Line = Record<string, unknown> & { msg: string; lvl: string };
function capture() {
  const lines: Line[] = [];
  const root = createLogger({
    level: 'debug',
    format: 'json',
    stream: { write: (l: string) => lines.push(JSON.parse(l) as Line) },
  });
  return { logger: root.logger, lines };
}

function metrics() {
  const registry = new MetricsRegistry({ namespace: 'op_node_default', defaultMetrics: false });
  return { registry, m: new OpNodeMetrics(registry.factory()) };
}

const cfg = testConfig();
const l1 = (n: number, fork = 0): L1BlockRef => ({
  hash: l1Hash(n, fork),
  number: n,
  parentHash: l1Hash(n - 1),
  timestamp: 1000 + 12 * n,
});

/** Derives `target` blocks: a progress step (origin advances) before each block, then EOF. */
class Scripted implements Derivation {
  #origin = l1(1);
  #progress = true;
  last: AttributesWithParent | undefined;
  constructor(private readonly target: number) {}
  async reset() {}
  async step(safe: L2BlockRef): Promise<StepResult> {
    if (safe.number >= this.target) return { kind: 'eof' };
    if (this.#progress) {
      this.#progress = false;
      this.#origin = l1(safe.number + 1);
      return { kind: 'progress' };
    }
    this.#progress = true;
    this.last = {
      attributes: attrs(cfg, safe, 0, safe.sequenceNumber + 1),
      parent: safe,
      derivedFrom: this.#origin,
      isLastInSpan: true,
    };
    return { kind: 'attributes', attributes: this.last };
  }
  origin() {
    return this.#origin;
  }
  depositsOnlyAttributes(_p: BlockId): AttributesWithParent {
    return this.last as AttributesWithParent;
  }
}

const until = (cond: () => boolean, ms = 5000) => waitUntil(cond, { timeoutMs: ms, everyMs: 5 });

const hashBytes = (h: string) => Buffer.from(h.slice(2), 'hex');

describe('tern-node progress lines and refs metrics', () => {
  it('logs Sync progress, L1 signals and the sync status, and records refs by type', async () => {
    const { logger, lines } = capture();
    const { registry, m } = metrics();
    const engine = new FakeEngine(cfg);
    const ctrl = new EngineController(cfg, engine, {
      logger,
      metrics: {
        recordL2Ref: (type, ref) =>
          m.recordL2Ref(type, {
            number: ref.number,
            time: ref.timestamp,
            hash: hashBytes(ref.hash),
            l1Origin: { number: ref.l1origin.number, hash: hashBytes(ref.l1origin.hash) },
            sequenceNumber: ref.sequenceNumber,
          }),
      },
    });
    const driver = new Driver(
      cfg,
      { syncMode: 'consensus-layer', idlePollMs: 20 },
      {
        l1: { blockRefByNumber: async (n: number) => l1(n), blockRefByHash: async () => l1(0) },
        derivation: new Scripted(3),
        engine: ctrl,
        safeDb: new DisabledSafeDb(),
      },
      {
        logger,
        metrics: {
          recordL1Ref: (type, ref) =>
            m.recordRef('l1', type, { number: ref.number, time: ref.timestamp, hash: hashBytes(ref.hash) }),
          recordL1ReorgDepth: (d) => m.l1ReorgDepth.observe(d),
          recordPipelineReset: () => m.pipelineResets.record(),
        },
      },
    );
    driver.onL1Head('latest', l1(5));
    driver.onL1Head('latest', l1(6));
    driver.onL1Head('latest', l1(4, 1));
    driver.onL1Head('safe', l1(3));
    driver.onL1Head('finalized', l1(2));
    driver.start();
    await until(() => ctrl.initialized && ctrl.heads.safe.number === 3);
    await driver.stop();

    const msg = (text: string) => lines.filter((l) => l.msg === text);
    expect(msg('Received first L1 head signal')[0]).toMatchObject({ lvl: 'info', l1_head: refString(l1(5)) });
    expect(msg('L1 head moved forward')[0]).toMatchObject({ lvl: 'debug' });
    expect(msg('L1 head signal indicates a possible L1 re-org')[0]).toMatchObject({ lvl: 'warn' });
    expect(msg('New L1 safe block')).toHaveLength(1);
    expect(msg('New L1 finalized block')).toHaveLength(1);
    const progress = msg('Sync progress');
    expect(progress.filter((l) => l.reason === 'derived safe block from L1')).toHaveLength(3);
    // L1 block 2 is finalized: the blocks derived from it follow.
    expect(progress.filter((l) => l.reason === 'finalized block').length).toBeGreaterThan(0);
    expect(progress.at(-1)).toMatchObject({
      lvl: 'info',
      l2_unsafe: refString(ctrl.heads.unsafe),
      l2_safe: refString(ctrl.heads.safe),
    });
    const status = msg('Derivation origin advanced');
    expect(status.length).toBe(3);
    expect(status[2]).toMatchObject({
      lvl: 'info',
      origin: refString(l1(3)),
      l1_head: refString(l1(4, 1)),
      l1_behind: 1,
    });

    const text = await registry.prometheusText();
    expect(text).toMatch(/^op_node_default_refs_number\{layer="l2",type="l2_safe"\} 3$/m);
    expect(text).toMatch(/^op_node_default_refs_number\{layer="l2",type="l2_unsafe"\} 3$/m);
    expect(text).toMatch(/^op_node_default_refs_number\{layer="l2",type="l2_finalized"\} 2$/m);
    expect(text).toMatch(/^op_node_default_refs_number\{layer="l1",type="l1_head"\} 4$/m);
    expect(text).toMatch(/^op_node_default_refs_number\{layer="l1",type="l1_safe"\} 3$/m);
    expect(text).toMatch(/^op_node_default_refs_number\{layer="l1",type="l1_derived"\} 3$/m);
    expect(text).toMatch(/^op_node_default_refs_seqnr\{type="l2_safe"\} 3$/m);
    expect(text).toMatch(/^op_node_default_l1_reorg_depth_count 1$/m);
  });

  it('names the op-node reasons', () => {
    const r = (n: number) => ({ number: n, hash: `0x${n}` });
    const h = (u: number, s: number, f: number) => ({ unsafe: r(u), pendingSafe: r(s), safe: r(s), finalized: r(f) });
    expect(syncProgressReason(undefined, h(1, 1, 1))).toBeUndefined();
    expect(syncProgressReason(h(1, 1, 0), h(2, 1, 0))).toBe('new chain head block');
    expect(syncProgressReason(h(3, 1, 0), h(3, 2, 0))).toBe('consolidated block with L1');
    expect(syncProgressReason(h(3, 3, 0), h(3, 3, 1))).toBe('finalized block');
    expect(syncProgressReason(h(3, 3, 0), h(3, 3, 0))).toBeUndefined();
  });
});

describe('derivation drops and L1 client requests', () => {
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });

  it('counts drops by kind and a bounded reason', async () => {
    const { registry, m } = metrics();
    const drops = m.derivationDropCounter();
    drops.drop('batch', 'transaction 3 is empty');
    drops.drop('batch', 'transaction 7 is empty');
    drops.drop('span batch', 'parent check does not match');
    expect(dropReasonLabel('L1 origin 0xabc of block 12')).toBe('L1 origin H of block N');
    const text = await registry.prometheusText();
    expect(text).toMatch(
      /^op_node_default_derivation_batches_dropped_total\{kind="batch",reason="transaction N is empty"\} 2$/m,
    );
    expect(text).toMatch(/kind="span batch",reason="parent check does not match"\} 1$/m);
  });

  it('times L1 requests by method, with the op-node error label', async () => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as
          | { id: number; method: string }
          | { id: number; method: string }[];
        const one = (r: { id: number; method: string }) =>
          r.method === 'eth_chainId'
            ? { jsonrpc: '2.0', id: r.id, result: '0x1' }
            : { jsonrpc: '2.0', id: r.id, error: { code: -32000, message: 'nope' } };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(Array.isArray(body) ? body.map(one) : one(body)));
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { registry, m } = metrics();
    const { logger } = capture();
    const client = new L1Client(
      {
        url,
        rpcKind: 'standard',
        trustRpc: true,
        maxBatchSize: 20,
        maxConcurrency: 10,
        rateLimit: 0,
        cacheSize: 10,
        maxAttempts: 1,
        retryBaseDelayMs: 1,
      },
      { logger, metrics: m.l1ClientMetrics() },
    );
    await expect(client.blockRefByLabel('latest')).rejects.toThrow();
    await client.close();
    const text = await registry.prometheusText();
    expect(text).toMatch(
      /^op_node_default_rpc_client_request_duration_seconds_count\{method="eth_getBlockByNumber"\} 1$/m,
    );
    expect(text).toMatch(/^op_node_default_rpc_client_requests_total\{method="eth_getBlockByNumber"\} 1$/m);
    expect(text).toMatch(
      /^op_node_default_rpc_client_responses_total\{method="eth_getBlockByNumber",error="rpc_-32000"\} 1$/m,
    );
  });
});
