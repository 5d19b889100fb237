// Metrics and profiling of the built programs, as an operator reaches them: curl-able Prometheus text with op-node's
// and geth's names, and pprof files that `go tool pprof` reads (Debian's golang-go; .ci/run installs it).
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv } from '../helpers/processes.js';

const BIN = { 'tern-node': join(ROOT, 'bin/tern-node.js'), 'tern-exec': join(ROOT, 'bin/tern-exec.js') };
const GENESIS = join(ROOT, '..', 'shared', 'fixtures', 'execution-apis', 'tests', 'genesis.json');

interface Running {
  child: ChildProcess;
  output: () => string;
  /** The address logged by `Starting <what> server addr=…`. */
  url: (what: 'metrics' | 'pprof') => string;
  stop: () => Promise<number | null>;
}

function start(program: keyof typeof BIN, args: string[], cwd: string): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN[program], ...args], {
      cwd,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let up = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${program} did not start:\n${output}`));
    }, 30_000);
    const running: Running = {
      child,
      output: () => output,
      url: (what) => {
        const m = new RegExp(`Starting ${what} server.*?(http://[0-9.]+:\\d+)`).exec(output);
        if (!m) throw new Error(`no ${what} address in:\n${output}`);
        return m[1] as string;
      },
      stop: () =>
        new Promise((res) => {
          child.once('exit', (code) => res(code));
          child.kill('SIGTERM');
        }),
    };
    const onData = (d: Buffer) => {
      output += d.toString();
      if (!up && /Started tern-exec|Started tern-node/.test(output)) {
        up = true;
        clearTimeout(timer);
        resolve(running);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      if (!up) {
        clearTimeout(timer);
        reject(new Error(`${program} exited ${code}:\n${output}`));
      }
    });
  });
}

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

async function pprofTop(url: string, dir: string, name: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const file = join(dir, name);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return execFileSync('go', ['tool', 'pprof', '-top', file], { encoding: 'utf8' });
}

let running: Running | undefined;
afterEach(async () => {
  if (running && running.child.exitCode === null) await running.stop();
  running = undefined;
});

describe('tern-node observability', () => {
  it('serves op-node metrics and pprof, logs its listeners, writes the exit profile', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'tern-obs-node-'));
    const profDir = mkdtempSync(join(tmpdir(), 'tern-obs-prof-'));
    running = await start(
      'tern-node',
      [
        '--p2p.disable',
        // The replica needs a chain and engine; unreachable ones are fine for serving metrics.
        '--network=op-sepolia',
        '--l1=http://127.0.0.1:9',
        '--l2=http://127.0.0.1:9',
        '--rpc.addr=127.0.0.1',
        '--rpc.port=0',
        '--metrics.enabled',
        '--metrics.addr=127.0.0.1',
        '--metrics.port=0',
        '--pprof.enabled',
        '--pprof.addr=127.0.0.1',
        '--pprof.port=0',
        `--pprof.path=${profDir}`,
        '--pprof.type=heap',
      ],
      cwd,
    );
    expect(running.output()).toMatch(/Native module (loaded|not loaded)/);
    const s = samples(await (await fetch(`${running.url('metrics')}/metrics`)).text());
    expect(s.get('op_node_default_up')).toBe(1);
    expect([...s.keys()].some((k) => k.startsWith('op_node_default_info{version='))).toBe(true);
    expect(s.has('op_node_default_native_loaded')).toBe(true);
    // Keep the main thread busy while the profile runs: an idle node on a loaded machine may yield no samples.
    const profiling = pprofTop(`${running.url('pprof')}/debug/pprof/profile?seconds=2`, profDir, 'live.pb.gz');
    const busyUntil = Date.now() + 1800;
    while (Date.now() < busyUntil) await (await fetch(`${running.url('metrics')}/metrics`)).text();
    expect(await profiling).toMatch(/\[thread main/);
    expect(await pprofTop(`${running.url('pprof')}/debug/pprof/heap`, profDir, 'heap.pb.gz')).toMatch(
      /Type: (inuse_)?(space|objects)/,
    );
    expect(await running.stop()).toBe(0);
    const exitProfile = join(profDir, 'heap.prof');
    expect(existsSync(exitProfile)).toBe(true);
    expect(execFileSync('go', ['tool', 'pprof', '-top', exitProfile], { encoding: 'utf8' })).toMatch(
      /Type: (inuse_)?(space|objects)/,
    );
  });
});

describe('tern-exec observability', () => {
  it("serves geth's metric paths only with --metrics.addr, pprof, and writes --pprof.cpuprofile at exit", async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-obs-exec-'));
    expect(
      spawnSync(process.execPath, [BIN['tern-exec'], 'init', `--datadir=${datadir}`, GENESIS], { env: cleanEnv() })
        .status,
    ).toBe(0);
    const cpu = join(datadir, 'cpu.pprof');
    running = await start(
      'tern-exec',
      [
        `--datadir=${datadir}`,
        '--metrics',
        '--metrics.addr=127.0.0.1',
        '--metrics.port=0',
        '--pprof',
        '--pprof.port=0',
        `--pprof.cpuprofile=${cpu}`,
        '--authrpc.port=0',
      ],
      datadir,
    );
    const base = running.url('metrics');
    const s = samples(await (await fetch(`${base}/debug/metrics/prometheus`)).text());
    expect(s.get('chain_head_block')).toBe(0);
    expect(s.has('txpool_pending')).toBe(true);
    expect(s.get('up')).toBe(1);
    const json = (await (await fetch(`${base}/debug/metrics`)).json()) as Record<string, number>;
    expect(json['chain/head/block']).toBe(0);
    // --pprof.cpuprofile holds the CPU profiler for the whole run: an on-demand one is refused, as in Go.
    const busy = await fetch(`${running.url('pprof')}/debug/pprof/profile?seconds=1`);
    expect(busy.status).toBe(500);
    expect(await busy.text()).toMatch(/already/);
    expect(await pprofTop(`${running.url('pprof')}/debug/pprof/goroutine`, datadir, 'g.pb.gz')).toMatch(
      /\[thread main/,
    );
    expect(await running.stop()).toBe(0);
    expect(execFileSync('go', ['tool', 'pprof', '-top', cpu], { encoding: 'utf8' })).toMatch(/\[thread main/);
  });

  it('starts no metrics server without --metrics.addr, and refuses --go-execution-trace with the alternative', async () => {
    const datadir = mkdtempSync(join(tmpdir(), 'tern-obs-exec-'));
    const r = spawnSync(process.execPath, [BIN['tern-exec'], `--datadir=${datadir}`, '--go-execution-trace=t.out'], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--pprof\.cpuprofile/);
    expect(
      spawnSync(process.execPath, [BIN['tern-exec'], 'init', `--datadir=${datadir}`, GENESIS], { env: cleanEnv() })
        .status,
    ).toBe(0);
    running = await start('tern-exec', [`--datadir=${datadir}`, '--metrics', '--authrpc.port=0'], datadir);
    expect(running.output()).not.toMatch(/Starting metrics server/);
  });
});
