// Issue 16's two-process check on a 200-block chain: node A imports a generated 200-block chain (bench/import's
// generator, small blocks so it generates in seconds), node B starts empty with --bootnodes set to A's enode (from
// admin_nodeInfo) and --synctarget set to A's head, and reaches the same head hash and state root by downloading and
// executing every block. Once with --syncmode=full, once with --syncmode=snap (the snap client is not built: it
// falls back to full sync and logs a notice saying so).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateChain } from '../../bench/import/generate.js';
import { chainFiles, DEFAULT_PARAMS } from '../../bench/import/params.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort, rpc, until } from '../helpers/processes.js';

const BIN = join(ROOT, 'bin/tern-exec.js');
const work = mkdtempSync(join(tmpdir(), 'tern-elsync-'));
const BLOCKS = 200;

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: cleanEnv(), timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
}

interface Node {
  proc: ChildProcess;
  logs: string;
  rpc: string;
}

const nodes: Node[] = [];

async function startNode(datadir: string, extra: string[]): Promise<Node> {
  const [http, auth] = [await freePort(), await freePort()];
  const proc = spawn(
    process.execPath,
    [
      BIN,
      `--datadir=${datadir}`,
      '--http',
      '--http.addr=127.0.0.1',
      `--http.port=${http}`,
      '--http.api=eth,net,admin',
      `--authrpc.port=${auth}`,
      '--ipcdisable',
      '--log.format=logfmt',
      '--port=0',
      '--nat=extip:127.0.0.1',
      ...extra,
    ],
    { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const node: Node = { proc, logs: '', rpc: `http://127.0.0.1:${http}` };
  nodes.push(node);
  const append = (d: Buffer) => {
    node.logs += String(d);
  };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);
  const readyLine = 'HTTP server started';
  for (let i = 0; i < 300 && !node.logs.includes(readyLine) && proc.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 100));
  if (!node.logs.includes(readyLine)) throw new Error(`tern-exec did not start:\n${node.logs}`);
  return node;
}

async function stop(n: Node): Promise<void> {
  if (n.proc.exitCode !== null) return;
  n.proc.kill('SIGTERM');
  await new Promise((r) => n.proc.once('exit', r));
}

afterAll(async () => {
  for (const n of nodes) await stop(n);
  rmSync(work, { recursive: true, force: true });
});

describe('EL sync of a 200-block chain between two tern-exec processes', () => {
  const files = chainFiles(join(work, 'chain'));
  let source: Node;
  let head: { hash: string; number: string; stateRoot: string };
  let enode: string;

  beforeAll(async () => {
    // A few transfers per block: 200 blocks generate and import in seconds.
    const meta = await generateChain(
      { ...DEFAULT_PARAMS, blocks: BLOCKS, blockGas: 150_000, senders: 20, recipients: 20, seed: 16 },
      files.dir,
      () => {},
    );
    expect(meta.blocks).toBe(BLOCKS);
    expect(meta.txs).toBeGreaterThan(BLOCKS);
    const a = join(work, 'a');
    run(['--datadir', a, 'init', files.genesis]);
    run(['--datadir', a, 'import', files.chain]);
    source = await startNode(a, []);
    head = await rpc(source.rpc, 'eth_getBlockByNumber', ['latest', false]);
    expect(Number(head.number)).toBe(BLOCKS);
    enode = (await rpc<{ enode: string }>(source.rpc, 'admin_nodeInfo')).enode;
    expect(enode).toMatch(/^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
  }, 120_000);

  for (const mode of ['full', 'snap'] as const) {
    it(`--syncmode=${mode}: the empty node reaches the first's head hash and state root`, async () => {
      const b = join(work, `b-${mode}`);
      run(['--datadir', b, 'init', files.genesis]);
      const syncing = await startNode(b, [`--bootnodes=${enode}`, `--synctarget=${head.hash}`, `--syncmode=${mode}`]);
      const got = await until(
        () => rpc<{ hash: string; number: string }>(syncing.rpc, 'eth_getBlockByNumber', ['latest', false]),
        (blk) => blk.hash === head.hash,
        60_000,
      );
      expect(got.hash, syncing.logs).toBe(head.hash);
      // Executed, not only stored: the state at the head matches, and a sample of blocks on the way has A's hashes.
      const mine = await rpc<{ stateRoot: string }>(syncing.rpc, 'eth_getBlockByNumber', [head.number, false]);
      expect(mine.stateRoot).toBe(head.stateRoot);
      for (const n of [1, 57, 133, BLOCKS - 1]) {
        const tag = `0x${n.toString(16)}`;
        const [x, y] = await Promise.all([
          rpc<{ hash: string }>(source.rpc, 'eth_getBlockByNumber', [tag, false]),
          rpc<{ hash: string }>(syncing.rpc, 'eth_getBlockByNumber', [tag, false]),
        ]);
        expect(y.hash).toBe(x.hash);
      }
      expect(syncing.logs).toMatch(/Imported new chain segment/);
      const notice = /Snap sync is not built: syncing in full mode/;
      if (mode === 'snap') expect(syncing.logs).toMatch(notice);
      else expect(syncing.logs).not.toMatch(notice);
      await stop(syncing);
    }, 90_000);
  }
});
