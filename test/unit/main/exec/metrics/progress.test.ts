// tern-exec's progress lines and the metrics fed since: the 8 s chain-segment line and the per-head debug line,
// the txpool gauges (slots included), --metrics.expensive's pool task histograms, and chainReady run once.
import { afterEach, describe, expect, it } from 'vitest';
import { EXEC_PROGRAM } from '../../../../../src/main/cli/execFlags.js';
import { execObservabilityOptions } from '../../../../../src/main/cli/execOptions.js';
import { parseSettings } from '../../../../../src/main/cli/parse.js';
import { Lifecycle } from '../../../../../src/main/common/lifecycle.js';
import { createLogger } from '../../../../../src/main/common/logger/index.js';
import { poolMetrics, uninstallPoolMetrics } from '../../../../../src/main/common/metrics/pool.js';
import type { ChainStore } from '../../../../../src/main/exec/chain/chainStore.js';
import { headEvents, type NewHeadEvent } from '../../../../../src/main/exec/chain/headEvents.js';
import { startExecObservability } from '../../../../../src/main/exec/metrics/observability.js';
import { ageString, ChainProgress } from '../../../../../src/main/exec/metrics/progress.js';
import type { Header } from '../../../../../src/main/primitives/block/header.js';

type Line = Record<string, unknown> & { msg: string; lvl: string };

function capture(level: 'info' | 'debug' = 'debug') {
  const lines: Line[] = [];
  const root = createLogger({
    level,
    format: 'json',
    stream: { write: (l: string) => lines.push(JSON.parse(l) as Line) },
  });
  return { logger: root.logger, lines };
}

const header = (n: number, gasUsed = 2_000_000n): Header =>
  ({
    number: BigInt(n),
    gasUsed,
    timestamp: 1_700_000_000n + BigInt(n) * 2n,
    stateRoot: new Uint8Array(32).fill(9),
  }) as Header;
const ev = (n: number, gas?: bigint): NewHeadEvent => ({
  number: BigInt(n),
  hash: new Uint8Array(32).fill(n),
  header: header(n, gas),
});

afterEach(() => uninstallPoolMetrics());

describe('ChainProgress', () => {
  it('logs every head at debug and one segment line per 8 s while the head moves', () => {
    const { logger, lines } = capture();
    let now = 1_700_000_100_000;
    const p = new ChainProgress(
      {},
      {
        logger,
        now: () => now,
        source: { txCount: () => 3, canonical: () => ({ gasUsed: 1_000_000n, txs: 5 }) },
      },
    );
    p.onHead(ev(1));
    for (let n = 2; n <= 5; n++) {
      now += 2000;
      p.onHead(ev(n));
    }
    const segments = lines.filter((l) => l.msg === 'Imported new chain segment');
    expect(lines.filter((l) => l.msg === 'Chain head was updated' && l.lvl === 'debug')).toHaveLength(5);
    expect(segments).toHaveLength(1);
    expect(segments[0]).toMatchObject({
      lvl: 'info',
      number: 5,
      blocks: 4,
      txs: 12,
      mgas: 8,
      elapsed: '8s',
      mgasps: 1,
      bps: 0.5,
      hash: `0x${'05'.repeat(32)}`,
    });
    // A jump of several blocks counts the bodies in between.
    now += 8000;
    p.onHead(ev(8));
    const last = lines.filter((l) => l.msg === 'Imported new chain segment').at(-1);
    expect(last).toMatchObject({ number: 8, blocks: 3, txs: 3 + 2 * 5, mgas: 4 });
  });

  it('says nothing at info while the head stands still or only rewinds', () => {
    const { logger, lines } = capture('info');
    let now = 0;
    const p = new ChainProgress({}, { logger, now: () => now });
    p.onHead(ev(10));
    now += 20_000;
    p.onHead(ev(9));
    p.onHead(ev(9));
    expect(lines).toHaveLength(0);
    expect(ageString(59)).toBe('59s');
    expect(ageString(3700)).toBe('1h1m');
  });
});

async function observability(argv: string[]) {
  const { logger, lines } = capture();
  const lifecycle = new Lifecycle(logger);
  const o = await startExecObservability(execObservabilityOptions(parseSettings(EXEC_PROGRAM, { argv, env: {} })), {
    logger,
    lifecycle,
  });
  return { o, lines, lifecycle };
}

function fakeStore(): ChainStore {
  const db = {};
  const head = { number: 7n, hash: new Uint8Array(32).fill(7), header: header(7) };
  return {
    db,
    head: () => head,
    safeHash: () => undefined,
    finalizedHash: () => undefined,
    headerByHash: () => undefined,
    blockByHash: () => ({ header: header(7), transactions: [Uint8Array.of(1), Uint8Array.of(2)] }),
    canonicalHash: () => undefined,
    config: () => ({ chainId: 1n }),
  } as unknown as ChainStore;
}

describe('startExecObservability', () => {
  it('feeds the txpool gauges, the head gauges and the progress lines; chainReady runs once', async () => {
    const { o, lines, lifecycle } = await observability(['--metrics']);
    o.txpool.setSource(() => ({ pending: 3, queued: 2, local: 1, slots: 6 }));
    const store = fakeStore();
    o.chainReady(store);
    o.chainReady(store);
    expect(headEvents(store.db).listenerCount).toBe(1);
    headEvents(store.db).emit(ev(8));
    expect(lines.some((l) => l.msg === 'Chain head was updated' && l.number === 8 && l.txs === 2)).toBe(true);
    const text = await o.registry.prometheusText();
    expect(text).toMatch(/^txpool_pending 3$/m);
    expect(text).toMatch(/^txpool_queued 2$/m);
    expect(text).toMatch(/^txpool_local 1$/m);
    expect(text).toMatch(/^txpool_slots 6$/m);
    expect(text).toMatch(/^chain_head_block 7$/m);
    expect(text).toMatch(/^up 1$/m);
    // Without --metrics.expensive the pools count tasks but keep no per-task timings.
    poolMetrics().observeRun('senders', 'recover', 0.01, true);
    const after = await o.registry.prometheusText();
    expect(after).toMatch(/^pool_tasks_total\{pool="senders",task="recover",result="ok"\} 1$/m);
    expect(after).not.toMatch(/pool_task_run_seconds/);
    expect(o.expensive).toBe(false);
    await lifecycle.stop('test');
    expect(headEvents(store.db).listenerCount).toBe(0);
  });

  it('--metrics.expensive adds the per-task pool histograms; RPC metrics by method', async () => {
    const { o, lifecycle } = await observability(['--metrics', '--metrics.expensive']);
    expect(o.expensive).toBe(true);
    poolMetrics().observeWait('senders', 'recover', 0.002);
    poolMetrics().observeRun('senders', 'recover', 0.01, true);
    const rpc = o.rpcMetrics((m) => m === 'eth_chainId');
    rpc?.observeRequest('eth_chainId', true, 2);
    rpc?.observeRequest('eth_nope', false, 1);
    const text = await o.registry.prometheusText();
    expect(text).toMatch(/^pool_task_run_seconds_count\{pool="senders",task="recover"\} 1$/m);
    expect(text).toMatch(/^pool_task_wait_seconds_count\{pool="senders",task="recover"\} 1$/m);
    expect(text).toMatch(/^rpc_requests 2$/m);
    expect(text).toMatch(/^rpc_duration_eth_chainId_success_count 1$/m);
    expect(text).toMatch(/^rpc_duration_other_failure_count 1$/m);
    await lifecycle.stop('test');
  });
});
