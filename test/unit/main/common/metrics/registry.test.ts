import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { registerBaseMetrics } from '../../../../../src/main/common/metrics/base.js';
import { OP_NODE_NAMESPACE, OpNodeMetrics } from '../../../../../src/main/common/metrics/opNode.js';
import { uninstallPoolMetrics } from '../../../../../src/main/common/metrics/pool.js';
import { MetricsRegistry, prometheusName } from '../../../../../src/main/common/metrics/registry.js';
import { MetricsServer } from '../../../../../src/main/common/metrics/server.js';
import { PiscinaPool } from '../../../../../src/main/pool/piscina.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;
const native = { loaded: true, path: '/x', functions: { keccak256: 'native' as const, trieRoot: 'js' as const } };

/** Parses Prometheus text: every non-comment line is `name{labels} value`. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    out.set(m[1] as string, Number(m[2]));
  }
  return out;
}

afterEach(() => uninstallPoolMetrics());

describe('MetricsRegistry', () => {
  it("uses geth's name rule and returns the same metric when asked twice", () => {
    expect(prometheusName('chain/head/block')).toBe('chain_head_block');
    expect(prometheusName('rpc/duration/eth_call/success.x-y')).toBe('rpc_duration_eth_call_success_x_y');
    const f = new MetricsRegistry({ defaultMetrics: false }).factory();
    const a = f.counter({ name: 'a/b', help: 'h' });
    expect(f.counter({ name: 'a/b', help: 'h' })).toBe(a);
    expect(() => f.gauge({ name: 'a/b', help: 'h' })).toThrow(/already registered as a counter/);
  });

  it("serves op-node's names under op_node_default_ at /metrics", async () => {
    const registry = new MetricsRegistry({ namespace: OP_NODE_NAMESPACE });
    const f = registry.factory();
    const base = registerBaseMetrics(f, { version: '0.1.0', native });
    const op = new OpNodeMetrics(f);
    op.recordRef('l1', 'l1_head', { number: 17, time: 1700000000, hash: new Uint8Array(32).fill(1) });
    op.pipelineResets.record();
    op.recordRpcClientRequest('eth_getBlockByNumber')(undefined);
    op.recordRpcClientRequest('engine_newPayloadV3')({ code: -38001 });
    base.recordUp();
    const server = new MetricsServer({ host: '127.0.0.1', port: 0, style: 'op-node' }, { logger, registry });
    const addr = await server.start();
    try {
      const res = await fetch(`${addr.url}/metrics`);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const s = samples(await res.text());
      expect(s.get('op_node_default_up')).toBe(1);
      expect(s.get('op_node_default_info{version="0.1.0"}')).toBe(1);
      expect(s.get('op_node_default_refs_number{layer="l1",type="l1_head"}')).toBe(17);
      expect(s.get('op_node_default_refs_time{layer="l1",type="l1_head"}')).toBe(1700000000);
      expect(s.get('op_node_default_pipeline_resets_total')).toBe(1);
      expect(s.get('op_node_default_rpc_client_request_duration_seconds_count{method="eth_getBlockByNumber"}')).toBe(1);
      expect(s.get('op_node_default_rpc_client_responses_total{method="engine_newPayloadV3",error="rpc_-38001"}')).toBe(
        1,
      );
      expect(s.get('op_node_default_native_function{function="trieRoot",impl="js"}')).toBe(1);
      expect(s.has('process_cpu_seconds_total')).toBe(true);
      expect((await fetch(`${addr.url}/debug/metrics`)).status).toBe(404);
    } finally {
      await server.stop();
    }
  });

  it("serves geth's JSON and Prometheus paths, timers expanded as geth's expvar does", async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    const f = registry.factory();
    f.gauge({ name: 'chain/head/block', help: 'h', collect: (g) => g.set(42) });
    const t = f.summary({ name: 'rpc/duration/all', help: 'h' });
    t.observe(10);
    t.observe(30);
    const server = new MetricsServer({ host: '127.0.0.1', port: 0, style: 'geth' }, { logger, registry });
    const addr = await server.start();
    try {
      const json = (await (await fetch(`${addr.url}/debug/metrics`)).json()) as Record<string, number>;
      expect(json['chain/head/block']).toBe(42);
      expect(json['rpc/duration/all.count']).toBe(2);
      expect(json['rpc/duration/all.mean']).toBe(20);
      expect(json['rpc/duration/all.50-percentile']).toBeGreaterThan(0);
      expect(json).toHaveProperty(['rpc/duration/all.999-percentile']);
      const s = samples(await (await fetch(`${addr.url}/debug/metrics/prometheus`)).text());
      expect(s.get('chain_head_block')).toBe(42);
      expect(s.get('rpc_duration_all_count')).toBe(2);
    } finally {
      await server.stop();
    }
  });

  it('reports worker-pool queue length, wait and run time per pool', async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    registerBaseMetrics(registry.factory(), { version: 'v', native });
    const pool = new PiscinaPool('keccak', { threads: 1, maxQueue: 0 });
    try {
      const running = [pool.run('sleep', { ms: 300 }), pool.run('sleep', { ms: 10 })];
      await new Promise((r) => setTimeout(r, 100));
      let s = samples(await registry.prometheusText());
      expect(s.get('pool_queue_length{pool="keccak"}')).toBe(1);
      expect(s.get('pool_active_tasks{pool="keccak"}')).toBe(1);
      await Promise.all(running);
      s = samples(await registry.prometheusText());
      expect(s.get('pool_task_run_seconds_count{pool="keccak",task="sleep"}')).toBe(2);
      expect(s.get('pool_tasks_total{pool="keccak",task="sleep",result="ok"}')).toBe(2);
      // The second task waited for the first (capacity 1): at least ~200 ms of admission wait.
      expect(s.get('pool_task_wait_seconds_sum{pool="keccak",task="sleep"}')).toBeGreaterThan(0.15);
    } finally {
      await pool.close();
    }
  });
});
