// The launcher against stand-in programs (fakeProgram.mjs): readiness, devnet.json, missing roles, a child that
// dies, a child that never answers, a wrong genesis, and a clean stop. The stand-in's `init` reads the built
// genesis module from dist/ (npx tsc -p tsconfig.build.json).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Capabilities } from '../../../../src/main/devnet/capabilities.js';
import { Devnet, type DevnetInfo, type DevnetOptions } from '../../../../src/main/devnet/launcher.js';
import { runDevnet } from '../../../../src/main/devnet/run.js';
import { formatStatus, snapshot } from '../../../../src/main/devnet/status.js';
import { quiet, removeWorkdirs, standInOptions } from './standIn.js';

const envKeys = ['FAKE_DIE_MATCH', 'FAKE_DIE_AFTER_MS', 'FAKE_SILENT_MATCH', 'FAKE_WRONG_GENESIS'];

afterEach(() => {
  for (const k of envKeys) delete process.env[k];
  removeWorkdirs();
});

function options(over: Partial<DevnetOptions> = {}): DevnetOptions {
  return standInOptions('tern-devnet-test-', over);
}

describe('devnet launcher (stand-in programs)', () => {
  it('starts every role, writes devnet.json, reports status, and stops everything cleanly', async () => {
    const devnet = new Devnet(options({ replicas: 2 }), quiet);
    const info = await devnet.start();
    try {
      const json = JSON.parse(readFileSync(join(info.workdir, 'devnet.json'), 'utf8')) as DevnetInfo;
      expect(json.l1.rpc).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(json.l1.beacon).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(json.nodes.map((n) => [n.name, n.role])).toEqual([
        ['sequencer', 'sequencer'],
        ['replica-1', 'replica'],
        ['replica-2', 'replica'],
      ]);
      const urls = json.nodes.flatMap((n) => [n.nodeRpc, n.execRpc, n.engine, n.metrics]);
      expect(urls.every((u) => typeof u === 'string')).toBe(true);
      expect(new Set([json.l1.rpc, json.l1.beacon, ...urls]).size).toBe(2 + urls.length);
      expect(json.batcher?.dataAvailability).toBe('blobs');
      expect(json.missing).toEqual([]);
      expect(json.accounts).toHaveLength(10);
      for (const f of ['rollup.json', 'l1-genesis.json', 'l2-genesis.json', 'jwt-sequencer.txt', 'logs/l1.log']) {
        expect(existsSync(join(info.workdir, f)), f).toBe(true);
      }
      expect(devnet.processes).toHaveLength(1 + 3 + 3 + 1);
      expect(devnet.processes.every((p) => p.running)).toBe(true);
      const args = devnet.processes.find((p) => p.spec.name === 'sequencer-node')?.spec.args ?? [];
      expect(args).toContain('--sequencer.enabled');
      const line = formatStatus(await snapshot(info));
      expect(line).toBe(
        'L1 #9 | sequencer u7 s5 f1 | replica-1 u7 s5 f1 lag 2 agree@5 | replica-2 u7 s5 f1 lag 2 agree@5',
      );
    } finally {
      await devnet.stop();
    }
    for (const p of devnet.processes) {
      expect(p.running, p.spec.name).toBe(false);
      expect(p.exitInfo?.code, p.spec.name).toBe(0);
    }
    expect(readFileSync(join(info.workdir, 'logs', 'l1.log'), 'utf8')).toContain('fake exec stopping');
  }, 60_000);

  it('does not start roles whose flags are not built, and says so', async () => {
    const caps: Capabilities = {
      missing: (role) => (role === 'sequencerNode' || role === 'replicaNode' ? ['rollup.config'] : []),
      built: () => true,
    };
    const devnet = new Devnet(options({ capabilities: caps }), quiet);
    const info = await devnet.start();
    await devnet.stop();
    expect(info.nodes.map((n) => n.nodeRpc)).toEqual([null, null]);
    expect(info.batcher).toBeNull();
    expect(info.missing).toHaveLength(3);
    expect(info.missing[0]).toContain('--rollup.config');
    expect(devnet.processes.map((p) => p.spec.name).sort()).toEqual(['l1', 'replica-1-exec', 'sequencer-exec']);
    // The status falls back to the engines' block tags.
    expect(formatStatus({ nodes: [{ name: 'x', source: 'engine', unsafe: 1 }] })).toBe('L1 #- | x u1 s- f- (engine)');
  }, 60_000);

  it('stops the rest and shows the log when a child dies', async () => {
    process.env.FAKE_DIE_MATCH = 'replica-1/node';
    process.env.FAKE_DIE_AFTER_MS = '2500';
    const lines: string[] = [];
    const ac = new AbortController();
    const code = await runDevnet(
      { ...options(), statusIntervalMs: 60_000 },
      { print: (l) => lines.push(l) },
      ac.signal,
    );
    expect(code).toBe(1);
    const text = lines.join('\n');
    expect(text).toContain('replica-1-node exited with code 3');
    expect(text).toContain('boom: fake failure');
    expect(text).toContain('logs are in');
  }, 60_000);

  it('stops on request (Ctrl-C) with status 0', async () => {
    const lines: string[] = [];
    const ac = new AbortController();
    const opts = { ...options(), statusIntervalMs: 60_000 };
    const run = runDevnet(opts, { print: (l) => lines.push(l) }, ac.signal);
    while (!lines.some((l) => l.includes('Ctrl-C stops everything'))) await new Promise((r) => setTimeout(r, 100));
    ac.abort();
    expect(await run).toBe(0);
    expect(lines.join('\n')).toContain('stopped; logs are in');
  }, 60_000);

  it('fails with the log tail when a process never answers, stopping what it started', async () => {
    process.env.FAKE_SILENT_MATCH = 'sequencer/exec';
    const devnet = new Devnet(options({ readyTimeoutMs: 2000 }), quiet);
    await expect(devnet.start()).rejects.toMatchObject({ code: 'DEVNET_NOT_READY' });
    expect(devnet.processes.every((p) => !p.running)).toBe(true);
  }, 60_000);

  it('refuses an engine whose genesis differs from rollup.json', async () => {
    process.env.FAKE_WRONG_GENESIS = '1';
    const devnet = new Devnet(options(), quiet);
    await expect(devnet.start()).rejects.toMatchObject({ code: 'DEVNET_GENESIS' });
  }, 60_000);

  it('refuses a non-empty work directory unless told to clean or reuse it', async () => {
    const opts = options();
    writeFileSync(join(opts.workdir, 'something'), 'x');
    await expect(new Devnet(opts, quiet).start()).rejects.toMatchObject({ code: 'DEVNET_WORKDIR' });
    const cleaned = new Devnet({ ...opts, existing: 'clean' }, quiet);
    const first = await cleaned.start();
    await cleaned.stop();
    expect(existsSync(join(opts.workdir, 'something'))).toBe(false);
    const reused = new Devnet({ ...opts, existing: 'reuse' }, quiet);
    const second = await reused.start();
    await reused.stop();
    expect(second.l2.genesis).toBe(first.l2.genesis);
  }, 60_000);
});

describe('devnet launcher stopped during start', () => {
  it('starts nothing new once stop() has run', async () => {
    const devnet = new Devnet(options(), quiet);
    const starting = devnet.start();
    // Stop as soon as layer 1 is spawned, while the launcher waits for it to answer.
    while (devnet.processes.length === 0) await new Promise((r) => setTimeout(r, 20));
    await devnet.stop();
    await expect(starting).rejects.toBeDefined();
    expect(devnet.processes.map((p) => p.spec.name)).toEqual(['l1']);
    expect(devnet.processes.every((p) => !p.running)).toBe(true);
  }, 60_000);
});

describe('devnet launcher restart', () => {
  it('restarts one process without treating its exit as a death, and records the new pid', async () => {
    const devnet = new Devnet(options(), quiet);
    const info = await devnet.start();
    try {
      const before = info.nodes[1]?.pids.node;
      const p = await devnet.restart('replica-1-node', { kill: true });
      expect(p.running).toBe(true);
      expect(p.pid).not.toBe(before);
      const json = JSON.parse(readFileSync(join(info.workdir, 'devnet.json'), 'utf8')) as DevnetInfo;
      expect(json.nodes[1]?.pids.node).toBe(p.pid);
      const died = await Promise.race([devnet.died, new Promise((r) => setTimeout(() => r('none'), 500))]);
      expect(died).toBe('none');
      expect(devnet.processes.filter((x) => x.spec.name === 'replica-1-node')).toHaveLength(1);
      await expect(devnet.restart('nope')).rejects.toMatchObject({ code: 'DEVNET_NO_PROCESS' });
    } finally {
      await devnet.stop();
    }
    expect(devnet.processes.every((p) => !p.running)).toBe(true);
  }, 60_000);
});
