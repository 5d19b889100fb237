// The executor thread stays observable: a CPU profile from the pprof server (what --pprof serves) covers the
// executor thread with block building and execution sampled there, and the chain/* import timers tern-exec feeds
// from newPayload carry the stage times the thread measured. Needs `go` (Debian's golang-go; .ci/run installs it)
// and the compiled worker modules in dist/ (build:ts first).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { MetricsRegistry } from '../../../../../src/main/common/metrics/registry.js';
import { PprofServer } from '../../../../../src/main/common/pprof/server.js';
import type { EngineApiDeps } from '../../../../../src/main/exec/engine/api.js';
import { ChainMetrics } from '../../../../../src/main/exec/metrics/geth.js';
import {
  attributes,
  buildBlock,
  type EngineFixture,
  engineFixture,
  pending,
  transfer,
  ZERO32,
} from '../engine/fixture.js';

const logger = createLogger({ level: 'silent', format: 'json' }).logger;

describe('the executor thread under observation', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });
  async function fixture(kind: 'inline' | 'worker', imported?: EngineApiDeps['imported']) {
    const f: EngineFixture = await engineFixture({ executor: kind, ...(imported ? { imported } : {}) });
    cleanup.push(() => f.close());
    return f;
  }

  it('feeds chain_execution, chain_validation and chain_write from the stage times measured on the thread', async () => {
    const registry = new MetricsRegistry({ defaultMetrics: false });
    const chain = new ChainMetrics(registry.factory());
    const dst = await fixture('worker', (t) => chain.recordImport(t));
    // Blocks built by another node, so the worker executes them (its own builds are stored without execution).
    const src = await fixture('inline');
    let parent = src.genesisHash;
    for (let b = 0; b < 2; b++) {
      src.pool.txs = await Promise.all(Array.from({ length: 5 }, (_, i) => transfer(b * 5 + i).then(pending)));
      const state = { headBlockHash: parent, safeBlockHash: ZERO32, finalizedBlockHash: ZERO32 };
      const fcu = await src.api.forkchoiceUpdated(3, state, attributes(12n * BigInt(b + 1)));
      const payload = src.api.getPayload(3, fcu.payloadId as Uint8Array).executionPayload;
      await src.api.newPayload(3, payload, [], new Uint8Array(32).fill(9));
      await src.api.forkchoiceUpdated(3, { ...state, headBlockHash: payload.blockHash });
      expect((await dst.api.newPayload(3, payload, [], new Uint8Array(32).fill(9))).status).toBe('VALID');
      await dst.api.forkchoiceUpdated(3, { ...state, headBlockHash: payload.blockHash });
      parent = payload.blockHash;
    }
    const text = await registry.prometheusText();
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
    expect(value('chain_inserts_count')).toBe(2);
    for (const timer of ['chain_execution', 'chain_validation', 'chain_write'])
      expect(value(`${timer}_sum`), timer).toBeGreaterThan(0);
    expect(value('chain_inserts_sum')).toBeGreaterThanOrEqual(value('chain_execution_sum') + value('chain_write_sum'));
  });

  it('a CPU profile while the sequencer builds covers the executor thread, with block execution sampled there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tern-executor-pprof-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const server = new PprofServer({ host: '127.0.0.1', port: 0 }, { logger });
    const addr = await server.start();
    cleanup.push(() => server.stop());
    const f = await fixture('worker');
    const signed = await Promise.all(Array.from({ length: 400 }, (_, i) => transfer(i)));
    let parent = f.genesisHash;
    await buildBlock(f, parent, 1n, {}, false); // the thread is up and warm before the profile starts
    const profile = fetch(`${addr.url}/debug/pprof/profile?seconds=2`).then(async (r) => ({
      status: r.status,
      body: Buffer.from(await r.arrayBuffer()),
    }));
    // Blocks of 40 pool transfers each, built, stored and made head through the Engine API, for the profile's span.
    for (let b = 0; b < 10; b++) {
      f.pool.txs = signed.slice(b * 40, (b + 1) * 40).map(pending);
      parent = await buildBlock(f, parent, 12n * BigInt(b + 1));
    }
    const { status, body } = await profile;
    expect(status).toBe(200);
    expect(f.store.head().number).toBe(10n);
    const file = join(dir, 'cpu.pb.gz');
    writeFileSync(file, body);
    const pprof = (...args: string[]) =>
      execFileSync('go', ['tool', 'pprof', ...args, file], { encoding: 'utf8', stdio: 'pipe' });
    const tags = pprof('-tags');
    expect(tags, tags).toMatch(/thread:.*worker \d+ executor/s);
    // Only samples under the executor thread's root: the builder's execution runs there.
    const onThread = pprof('-top', '-cum', '-nodecount=400', '-focus=worker [0-9]+ executor');
    expect(onThread, onThread).toMatch(/\[thread worker \d+ executor\]/);
    expect(onThread, onThread).toMatch(/assembleBlock|processBlock/);
  });
});
