// The reliability suite's flaky layer 1 on a whole devnet: the replica reads layer 1's RPC and beacon API through
// fault proxies (latency, 429/5xx, connection resets, answers cut short) while the sequencer and the batcher post
// blob batches directly. The replica must derive the same safe chain as the sequencer within a bounded time, and
// tell the operator (WARNs with counts) that its layer 1 is failing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parseDevnetArgs } from '../../src/main/devnet/cli.js';
import { Devnet, type DevnetInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { pollUntil } from './devnetChild.js';

type SyncStatus = { safe_l2: { number: number } };

it('a replica deriving through faulty L1 RPC and beacon proxies converges with the sequencer and warns', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tern-devnet-e2e-faults-'));
  const opts = parseDevnetArgs([`--workdir=${dir}`, '--l1-block-time=1', '--da=blobs']);
  if (opts === 'help') throw new Error('unexpected help');
  const lines: string[] = [];
  const faults = { latencyMs: [0, 300], errorRate: 0.2, resetRate: 0.05, truncateRate: 0.05 } as const;
  const devnet = new Devnet({ ...opts, replicaFaults: faults }, { print: (l) => lines.push(l) });
  const until = <T>(what: string, timeoutMs: number, f: () => Promise<T | undefined>): Promise<T> =>
    pollUntil(what, timeoutMs, () => lines.join('\n'), f);
  let restoreBeacon: ReturnType<typeof setInterval> | undefined;
  try {
    const started = await devnet.start();
    expect(started.missing).toEqual([]);
    const [seq, replica] = started.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
    const proxies = devnet.faultProxies;
    if (proxies === undefined) throw new Error('no fault proxies');
    // Only the replica goes through the proxies.
    const args = (name: string) => devnet.processes.find((p) => p.spec.name === name)?.spec.args ?? [];
    expect(args('replica-1-node')).toContain(`--l1=${proxies.l1Rpc.url}`);
    expect(args('replica-1-node')).toContain(`--l1.beacon=${proxies.beacon.url}`);
    expect(args('sequencer-node')).toContain(`--l1=${started.l1.rpc}`);
    // The replica asks the beacon API for few blobs, too few for a 30 % fault rate to be sure to hit one: its first
    // requests fail 90 % of the time, then the rate drops back once three have failed.
    proxies.beacon.setFaults({ ...faults, errorRate: 0.9 });
    restoreBeacon = setInterval(() => {
      const c = proxies.beacon.counts;
      if (c.errors + c.resets + c.truncated < 3) return;
      proxies.beacon.setFaults(faults);
      clearInterval(restoreBeacon);
    }, 100);
    const safeOf = async (rpc: string) => (await rpcCall<SyncStatus>(rpc, 'optimism_syncStatus')).safe_l2.number;
    // The sequencer's safe chain from blob batches, then the replica's, in bounded time.
    const target = await until('the sequencer safe head past block 6', 150_000, async () => {
      const s = await safeOf(seq.nodeRpc as string);
      return s >= 6 ? s : undefined;
    });
    const t0 = performance.now();
    const safe = await until(`the faulty replica safe head at ${target}`, 120_000, async () => {
      const s = await safeOf(replica.nodeRpc as string);
      return s >= target ? s : undefined;
    });
    const lagMs = performance.now() - t0;
    for (let n = 1; n <= safe; n++) {
      const q = [`0x${n.toString(16)}`, false];
      const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
      const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
      expect(b.hash, `block ${n}`).toBe(a.hash);
    }
    // Faults were injected on both endpoints, and the replica said so with counts.
    const injected = (c: typeof proxies.l1Rpc.counts) => c.errors + c.resets + c.truncated;
    expect(injected(proxies.l1Rpc.counts)).toBeGreaterThan(10);
    expect(injected(proxies.beacon.counts)).toBeGreaterThan(0);
    const log = readFileSync(replica.logs.node, 'utf8');
    expect(log).toMatch(/L1 RPC requests failing, retrying.*failures=\d+/);
    expect(log).toMatch(/Beacon requests failing, retrying.*failures=\d+/);
    expect(lagMs).toBeLessThan(120_000);
    const died = await Promise.race([devnet.died, new Promise((r) => setTimeout(() => r('none'), 10))]);
    expect(died).toBe('none');
  } finally {
    clearInterval(restoreBeacon);
    await devnet.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  expect(devnet.processes.every((p) => !p.running)).toBe(true);
}, 360_000);
