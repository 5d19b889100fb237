// tern-pair end to end in this process: the answers that start nothing (--help, --version, bad flags: exit 2 with
// one line naming the side), the failures at startup (prefixed with the program that failed, nothing left
// running), and a real start — tern-exec over an initialised datadir, tern-node over it with the in-process engine
// (its output root of block 0 is read from tern-exec's chain) — stopped in order. Layer 1 is unreachable: startup
// does not wait for it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProgram } from '../../../../src/main/cli/run.js';
import { accountFor } from '../../../../src/main/devnet/accounts.js';
import { genesisBlockId, l2GenesisJson } from '../../../../src/main/devnet/genesis.js';
import { freePorts } from '../../../../src/main/devnet/ports.js';
import { devnetRollupJson } from '../../../../src/main/devnet/rollupConfig.js';
import { rpcCall } from '../../../../src/main/devnet/rpc.js';
import { EXEC_HOOKS } from '../../../../src/main/exec/main.js';
import { runPair } from '../../../../src/main/pair/run.js';

interface Captured {
  code: Awaited<ReturnType<typeof runPair>>;
  stdout: string;
  stderr: string;
}

async function pair(argv: string[], env: Record<string, string> = {}): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const code = await runPair({
    argv,
    env,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}

const QUIET_NODE = ['--log.level=error', '--p2p.disable'];
const QUIET_EXEC = ['--verbosity=1', '--ipcdisable'];

let dir: string;
let datadir: string;
let rollup: string;
let l2Genesis: { hash: string; number: number; time: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tern-pair-test-'));
  datadir = join(dir, 'exec');
  const time = Math.floor(Date.now() / 1000);
  const l2Json = l2GenesisJson({ chainId: 901n, timestamp: time, gasLimit: 30_000_000n, jovian: false });
  l2Genesis = genesisBlockId(l2Json);
  writeFileSync(join(dir, 'l2-genesis.json'), JSON.stringify(l2Json));
  const l1 = { hash: `0x${'11'.repeat(32)}`, number: 0, time };
  const rollupJson = (l2ChainId: bigint) =>
    devnetRollupJson({
      l1,
      l2: l2Genesis,
      l1ChainId: 1337n,
      l2ChainId,
      blockTime: 2,
      batcher: accountFor('batcher').address,
      gasLimit: 30_000_000n,
      jovian: false,
    });
  rollup = join(dir, 'rollup.json');
  writeFileSync(rollup, JSON.stringify(rollupJson(901n)));
  writeFileSync(join(dir, 'rollup-902.json'), JSON.stringify(rollupJson(902n)));
  const init = await runProgram(EXEC_HOOKS, {
    argv: ['init', `--datadir=${datadir}`, '--verbosity=1', join(dir, 'l2-genesis.json')],
    env: {},
    stdout: () => {},
    stderr: () => {},
  });
  expect(init).toBe(0);
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('tern-pair', () => {
  it('--help explains the split and --version names the program, starting nothing', async () => {
    const help = await pair(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('tern-pair [tern-node flags] -- [tern-exec flags]');
    expect(help.stdout).toMatch(/--l2, --l2.jwt-secret/);
    expect((await pair(['--', '-h'])).stdout).toBe(help.stdout);
    const version = await pair(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^tern-pair version /);
  });

  it('bad flags on either side: one line naming the side, exit status 2', async () => {
    const node = await pair(['--bogus', '--', '--datadir=x']);
    expect(node.code).toBe(2);
    expect(node.stderr).toBe(
      "tern-pair: tern-node (flags before --): unknown flag --bogus\nRun 'tern-pair --help' for usage.\n",
    );
    const exec = await pair(['--', '--http.port=nope']);
    expect(exec.code).toBe(2);
    expect(exec.stderr).toMatch(/^tern-pair: tern-exec \(flags after --\): invalid value "nope" for flag --http\.port/);
    const l2 = await pair([`--rollup.config=${rollup}`, '--l2=http://127.0.0.1:8551', '--', `--datadir=${datadir}`]);
    expect(l2.code).toBe(2);
    expect(l2.stderr).toMatch(
      /^tern-pair: tern-node \(flags before --\): --l2 cannot be used: the engine is in-process/,
    );
  });

  it('a tern-exec that cannot start: the error names tern-exec, and nothing is left running', async () => {
    const empty = join(dir, 'empty');
    const r = await pair([`--rollup.config=${rollup}`, ...QUIET_NODE, '--', `--datadir=${empty}`, ...QUIET_EXEC]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tern-pair: tern-exec: the database has no genesis block: initialise it first/);
  }, 30_000);

  it('a rollup config for another chain: the error names tern-node, and tern-exec is stopped again', async () => {
    const [http] = await freePorts(1);
    const r = await pair([
      `--rollup.config=${join(dir, 'rollup-902.json')}`,
      '--l1=http://127.0.0.1:1',
      ...QUIET_NODE,
      '--',
      `--datadir=${datadir}`,
      '--http',
      `--http.port=${http}`,
      '--authrpc.port=0',
      ...QUIET_EXEC,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^tern-pair: tern-node: the rollup config is for L2 chain 902, but tern-exec's database holds chain 901/,
    );
    // tern-exec's listener is closed again.
    await expect(rpcCall(`http://127.0.0.1:${http}`, 'eth_chainId', [], 1000)).rejects.toThrow();
  }, 30_000);

  it('runs both in one process: tern-node reads tern-exec through the in-process engine; stops node, then exec', async () => {
    const [http, rpc] = (await freePorts(2)) as [number, number];
    const r = await pair([
      `--rollup.config=${rollup}`,
      '--l1=http://127.0.0.1:1',
      `--rpc.port=${rpc}`,
      ...QUIET_NODE,
      '--',
      `--datadir=${datadir}`,
      '--http',
      `--http.port=${http}`,
      '--http.api=eth,net,web3',
      '--authrpc.port=0',
      ...QUIET_EXEC,
    ]);
    if (typeof r.code === 'number') throw new Error(`tern-pair did not start (${r.code}): ${r.stderr}`);
    const running = r.code;
    try {
      // tern-exec's own listeners work as usual.
      expect(await rpcCall(`http://127.0.0.1:${http}`, 'eth_chainId')).toBe('0x385');
      expect(running.execNode.authAddress?.port).toBeGreaterThan(0);
      // tern-node answers, and its output at block 0 comes from tern-exec's chain.
      const out = await rpcCall<{ blockRef: { hash: string } }>(`http://127.0.0.1:${rpc}`, 'optimism_outputAtBlock', [
        '0x0',
      ]);
      expect(out.blockRef.hash).toBe(l2Genesis.hash);
    } finally {
      await running.node.stop('test over');
    }
    expect(running.exec.signal.aborted).toBe(true);
    await running.exec.stopped;
    await expect(rpcCall(`http://127.0.0.1:${rpc}`, 'optimism_syncStatus', [], 1000)).rejects.toThrow();
    await expect(rpcCall(`http://127.0.0.1:${http}`, 'eth_chainId', [], 1000)).rejects.toThrow();
  }, 60_000);
});
