// tern-devnet --engine in-process as a process: each rollup node runs with its engine in one tern-pair process
// (devnet.json keeps its shape, with the same pid and log for exec and node, and the devnet has one child process per
// pair), the replica's safe head reaches the sequencer's with every block hash the same, the status line shows it,
// and SIGINT stops every process cleanly, tern-node before tern-exec inside each pair. About 20 s here; the
// time limits add up to 200 s at most (the whole suite runs on two cores).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { alive, DevnetChild } from './devnetChild.js';

let workdir: string;
let devnet: DevnetChild;
let info: DevnetInfo;

const until = <T>(what: string, timeoutMs: number, f: () => Promise<T | undefined>): Promise<T> =>
  devnet.until(what, timeoutMs, f);

/** The command lines of the live child processes of `ppid` (from /proc). */
function childCommands(ppid: number): string[] {
  const out: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === ppid) out.push(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

type SyncStatus = { safe_l2: { number: number }; unsafe_l2: { number: number } };

describe('tern-devnet --engine in-process', () => {
  beforeAll(async () => {
    const args = ['--engine=in-process', '--replicas=1', '--status-interval=2', '--l1-block-time=1', '--da=calldata'];
    devnet = new DevnetChild('tern-devnet-inprocess-e2e-', args);
    workdir = devnet.workdir;
    info = await devnet.ready(75_000);
  }, 80_000);

  afterAll(async () => devnet?.cleanup());

  it('runs each rollup node and its engine as one tern-pair process', async () => {
    if (info.missing.length > 0) throw new Error(`the devnet is not whole: ${info.missing.join('; ')}`);
    expect(info.nodes.map((n) => n.role)).toEqual(['sequencer', 'replica']);
    for (const n of info.nodes) {
      // devnet.json keeps its shape: the same process (and log) for exec and node.
      expect(n.pids.exec, n.name).toBeDefined();
      expect(n.pids.node, n.name).toBe(n.pids.exec);
      expect(n.logs.exec).toBe(join(workdir, 'logs', `${n.name}-pair.log`));
      expect(n.logs.node).toBe(n.logs.exec);
      expect(existsSync(join(workdir, 'logs', `${n.name}-node.log`))).toBe(false);
      expect(existsSync(join(workdir, 'logs', `${n.name}-exec.log`))).toBe(false);
      // Both programs log into the one log: tern-node in logfmt, tern-exec in the terminal format.
      const log = readFileSync(n.logs.node, 'utf8');
      expect(log).toMatch(/Engine in-process: tern-exec runs in this process/);
      expect(log).toMatch(/Starting tern-exec/);
      // tern-exec still serves its authenticated engine endpoint (with the JWT) and its user RPC.
      await expect(rpcCall(n.engine, 'eth_chainId')).rejects.toThrow(/401|403/);
      expect(await rpcCall(n.execRpc, 'eth_chainId')).toBe('0x385');
      expect(await rpcCall<SyncStatus>(n.nodeRpc as string, 'optimism_syncStatus')).toHaveProperty('unsafe_l2');
    }
    // The devnet's children: layer 1, two tern-pair processes and the batcher; no tern-node or tern-exec of a pair.
    const children = childCommands(devnet.child.pid as number);
    expect(children.filter((c) => c.includes('bin/tern-pair.js'))).toHaveLength(2);
    expect(children.filter((c) => c.includes('bin/tern-node.js'))).toHaveLength(0);
    expect(children.filter((c) => c.includes('bin/tern-exec.js'))).toHaveLength(1); // layer 1 (--dev)
    expect(children.filter((c) => c.includes('bin/tern-exec.js'))[0]).toContain('--dev');
    expect(children).toHaveLength(4);
    expect(devnet.out).toMatch(/sequencer .*one tern-pair process, pid \d+/);
  }, 15_000);

  it("the replica's safe head reaches the sequencer's, every block hash matching", async () => {
    const [seq, replica] = info.nodes as [DevnetInfo['nodes'][number], DevnetInfo['nodes'][number]];
    const status = (n: DevnetInfo['nodes'][number]) => rpcCall<SyncStatus>(n.nodeRpc as string, 'optimism_syncStatus');
    // The sequencer's safe head once batches made it past block 3, then the replica's reaching it.
    const target = await until('the sequencer safe head past block 3', 40_000, async () => {
      const s = (await status(seq)).safe_l2.number;
      return s >= 3 ? s : undefined;
    });
    const safe = await until(`the replica safe head at block ${target}`, 25_000, async () => {
      const s = (await status(replica)).safe_l2.number;
      return s >= target ? s : undefined;
    });
    for (let n = 1; n <= safe; n++) {
      const q = [`0x${n.toString(16)}`, false];
      const a = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', q);
      const b = await rpcCall<{ hash: string }>(replica.execRpc, 'eth_getBlockByNumber', q);
      expect(b.hash, `block ${n}`).toBe(a.hash);
    }
    // The status line compares both engines at the replica's safe head.
    await until('a status line where the replica agrees', 8_000, async () =>
      /replica-1 u\d+ s([1-9]\d*) f\d+ lag -?\d+ agree@\1/.test(devnet.out) ? true : undefined,
    );
    expect(devnet.out).not.toMatch(/DIFFER@/);
  }, 75_000);

  it('Ctrl-C stops every process cleanly, tern-node before tern-exec in each pair', async () => {
    devnet.child.kill('SIGINT');
    const code = await Promise.race([devnet.exitCode, new Promise((r) => setTimeout(() => r('timeout'), 25_000))]);
    expect(code, devnet.out).toBe(0);
    expect(devnet.out).toContain(`logs are in ${workdir}/logs`);
    const pids = [info.l1.pid, ...info.nodes.flatMap((n) => [n.pids.exec, n.pids.node]), info.batcher?.pid];
    for (const pid of pids) if (pid !== undefined) expect(alive(pid), `pid ${pid}`).toBe(false);
    for (const n of info.nodes) {
      const log = readFileSync(n.logs.node, 'utf8');
      const nodeStop = log.search(/msg="Shutting down" module=lifecycle reason="received SIGTERM"/);
      const execStop = log.search(/Shutting down\s+module=lifecycle reason="tern-node stopped"/);
      expect(nodeStop, n.name).toBeGreaterThan(0);
      expect(execStop, n.name).toBeGreaterThan(nodeStop);
      expect(log).not.toMatch(/Stop hook failed/);
    }
  }, 30_000);
});
