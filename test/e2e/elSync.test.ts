// Issue 16's two-process check on a 200-block chain: node A imports a generated 200-block chain (bench/import's
// generator, small blocks so it generates in seconds), node B starts empty with --bootnodes set to A's enode (from
// admin_nodeInfo) and --synctarget set to A's head, and reaches the same head hash and state root by downloading and
// executing every block. Once with --syncmode=full, once with --syncmode=snap (the snap client is not built: it
// falls back to full sync and logs a notice saying so).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateChain } from '../../bench/import/generate.js';
import { chainFiles, DEFAULT_PARAMS } from '../../bench/import/params.js';
import { type ExecProcess, ExecProcesses, runTernExec, stopExecProcess } from '../helpers/execProcesses.js';
import { rpc, until } from '../helpers/processes.js';

const work = mkdtempSync(join(tmpdir(), 'tern-elsync-'));
const BLOCKS = 200;

const execs = new ExecProcesses();
const startNode = (datadir: string, extra: string[]) =>
  execs.start(datadir, ['--port=0', '--nat=extip:127.0.0.1', ...extra], 'HTTP server started');

afterAll(async () => {
  await execs.stopAll();
  rmSync(work, { recursive: true, force: true });
});

describe('EL sync of a 200-block chain between two tern-exec processes', () => {
  const files = chainFiles(join(work, 'chain'));
  let source: ExecProcess;
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
    runTernExec(['--datadir', a, 'init', files.genesis]);
    runTernExec(['--datadir', a, 'import', files.chain]);
    source = await startNode(a, []);
    head = await rpc(source.rpc, 'eth_getBlockByNumber', ['latest', false]);
    expect(Number(head.number)).toBe(BLOCKS);
    enode = (await rpc<{ enode: string }>(source.rpc, 'admin_nodeInfo')).enode;
    expect(enode).toMatch(/^enode:\/\/[0-9a-f]{128}@127\.0\.0\.1:\d+$/);
  }, 120_000);

  for (const mode of ['full', 'snap'] as const) {
    it(`--syncmode=${mode}: the empty node reaches the first's head hash and state root`, async () => {
      const b = join(work, `b-${mode}`);
      runTernExec(['--datadir', b, 'init', files.genesis]);
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
      await stopExecProcess(syncing);
    }, 90_000);
  }
});
