// The launcher with --engine in-process against stand-in programs (fakeProgram.mjs): each rollup node and its
// engine are one tern-pair process, `<tern-node flags> -- <tern-exec flags>`, and devnet.json keeps its shape
// (the same pid and log for exec and node). The stand-in's `init` reads dist/ (npx tsc -p tsconfig.build.json).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Devnet, type DevnetInfo, type DevnetOptions } from '../../../../src/main/devnet/launcher.js';
import { waitReady } from '../../../../src/main/devnet/process.js';
import { rpcCall } from '../../../../src/main/devnet/rpc.js';
import { summary } from '../../../../src/main/devnet/run.js';
import { formatStatus, snapshot } from '../../../../src/main/devnet/status.js';
import { quiet, removeWorkdirs, standIn, standInOptions } from './standIn.js';

afterEach(() => {
  delete process.env.FAKE_DIE_MATCH;
  delete process.env.FAKE_DIE_AFTER_MS;
  removeWorkdirs();
});

function options(over: Partial<DevnetOptions> = {}): DevnetOptions {
  return standInOptions('tern-devnet-inprocess-test-', {
    engine: 'in-process',
    programs: { exec: standIn('exec'), node: standIn('node'), batcher: standIn('batcher'), pair: standIn('pair') },
    ...over,
  });
}

describe('devnet launcher, engine in-process (stand-in programs)', () => {
  it('runs each rollup node with its engine as one tern-pair process', async () => {
    const devnet = new Devnet(options(), quiet);
    const info = await devnet.start();
    try {
      expect(devnet.processes.map((p) => p.spec.name).sort()).toEqual([
        'batcher',
        'l1',
        'replica-1-pair',
        'sequencer-pair',
      ]);
      const json = JSON.parse(readFileSync(join(info.workdir, 'devnet.json'), 'utf8')) as DevnetInfo;
      for (const n of json.nodes) {
        const p = devnet.processes.find((x) => x.spec.name === `${n.name}-pair`);
        expect(n.pids.exec, n.name).toBe(p?.pid);
        expect(n.pids.node, n.name).toBe(p?.pid);
        expect(n.logs.exec).toBe(join(info.workdir, 'logs', `${n.name}-pair.log`));
        expect(n.logs.node).toBe(n.logs.exec);
        // The shape of devnet.json is unchanged: the engine is still tern-exec's authenticated endpoint.
        expect(n.engine).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(typeof n.metrics).toBe('string');
        const args = p?.spec.args ?? [];
        const split = args.indexOf('--');
        expect(split).toBeGreaterThan(0);
        const [nodeArgs, execArgs] = [args.slice(0, split), args.slice(split + 1)];
        expect(nodeArgs).toContain(`--rollup.config=${info.rollupConfig}`);
        expect(nodeArgs).toContain(`--rpc.port=${new URL(n.nodeRpc as string).port}`);
        expect(nodeArgs.some((a) => a.startsWith('--l2'))).toBe(false);
        expect(execArgs).toContain(`--datadir=${join(info.workdir, n.name, 'exec')}`);
        expect(execArgs).toContain(`--authrpc.port=${new URL(n.engine).port}`);
        expect(execArgs).toContain(`--authrpc.jwtsecret=${n.jwtSecret}`);
        expect(nodeArgs.includes('--sequencer.enabled'), n.name).toBe(n.role === 'sequencer');
      }
      expect(formatStatus(await snapshot(info))).toBe('L1 #9 | sequencer u7 s5 f1 | replica-1 u7 s5 f1 lag 2 agree@5');
      expect(summary(info).join('\n')).toMatch(/sequencer .*one tern-pair process, pid \d+/);

      const p = await devnet.restart('replica-1-pair', { kill: true });
      // Answering again (so it has its SIGTERM handler when stopped below).
      await waitReady(
        p,
        async () => (await rpcCall(info.nodes[1]?.nodeRpc as string, 'optimism_syncStatus')) !== null,
        {
          timeoutMs: 15_000,
          what: 'the restarted pair',
        },
      );
      const after = JSON.parse(readFileSync(join(info.workdir, 'devnet.json'), 'utf8')) as DevnetInfo;
      expect(after.nodes[1]?.pids).toEqual({ exec: p.pid, node: p.pid });
    } finally {
      await devnet.stop();
    }
    for (const p of devnet.processes) {
      expect(p.running, p.spec.name).toBe(false);
      expect(p.exitInfo?.code, p.spec.name).toBe(0);
    }
  }, 60_000);

  it('refuses in-process without a tern-pair program', async () => {
    const o = options();
    const devnet = new Devnet(
      { ...o, programs: { ...o.programs, pair: undefined } as DevnetOptions['programs'] },
      quiet,
    );
    await expect(devnet.start()).rejects.toMatchObject({ code: 'DEVNET_UNSUPPORTED' });
    // Refused before anything starts.
    expect(devnet.processes).toHaveLength(0);
  }, 60_000);
});
