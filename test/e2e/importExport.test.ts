// `tern-exec import` and `export` as an operator runs them: real processes over dist/. The crash test kills the
// importer with SIGKILL in the middle of a chain several times; each time the database must open at a block of
// that chain, and the next import must resume after it and end on the chain's head with every state root checked.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateChain } from '../../bench/import/generate.js';
import { type ChainMeta, chainFiles, DEFAULT_PARAMS } from '../../bench/import/params.js';
import { xorshiftRng } from '../../bench/rng.js';
import { headerHash } from '../../src/main/primitives/block/header.js';
import { execTernExec, headOf } from '../helpers/execProcesses.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort } from '../helpers/processes.js';

const BIN = join(ROOT, 'bin/tern-exec.js');
const APIS = join(FIXTURES, 'execution-apis/tests');
const work = mkdtempSync(join(tmpdir(), 'tern-import-'));
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`;

/** tern-exec with JSON logs. */
const exec = (args: string[]) => execTernExec(['--log.format', 'json', ...args]);

function logLine(stderr: string, msg: string): Record<string, unknown> | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    const j = JSON.parse(line) as Record<string, unknown>;
    if (j.msg === msg) return j;
  }
  return undefined;
}

/** The head of the database in `datadir`, read directly (the process that wrote it is gone). */
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('tern-exec export', () => {
  const datadir = join(work, 'apis');
  beforeAll(() => {
    expect(exec(['--datadir', datadir, 'init', join(APIS, 'genesis.json')]).code).toBe(0);
    const imp = exec(['--datadir', datadir, 'import', join(APIS, 'chain.rlp')]);
    expect(imp.code, imp.stderr).toBe(0);
  });

  it('writes the whole chain byte for byte as it was imported', () => {
    const out = join(work, 'all.rlp');
    const r = exec(['--datadir', datadir, 'export', out]);
    expect(r.code, r.stderr).toBe(0);
    const original = readFileSync(join(APIS, 'chain.rlp'));
    const exported = readFileSync(out);
    // The export starts with the genesis block, which chain.rlp does not hold.
    expect(exported.subarray(exported.length - original.length).equals(original)).toBe(true);
  });

  it('appends ranges, and a .gz export imports into a fresh node', async () => {
    const ranged = join(work, 'ranges.rlp');
    expect(exec(['--datadir', datadir, 'export', ranged, '1', '3']).code).toBe(0);
    const once = readFileSync(ranged).length;
    expect(exec(['--datadir', datadir, 'export', ranged, '4', '4']).code).toBe(0);
    expect(readFileSync(ranged).length).toBeGreaterThan(once);

    const gz = join(work, 'chain.rlp.gz');
    expect(exec(['--datadir', datadir, 'export', gz, '1', '20']).code).toBe(0);
    const fresh = join(work, 'fresh');
    expect(exec(['--datadir', fresh, 'init', join(APIS, 'genesis.json')]).code).toBe(0);
    const r = exec(['--datadir', fresh, 'import', gz]);
    expect(r.code, r.stderr).toBe(0);
    expect(await headOf(fresh)).toEqual(await headOf(datadir));
  });

  it('refuses a bad range with one line and exit 2', () => {
    for (const args of [
      ['x', '5', '2'],
      ['x', '1'],
      ['x', 'a', '2'],
      ['x', '0', '99'],
    ]) {
      const r = exec(['--datadir', datadir, 'export', ...args.map((a, i) => (i === 0 ? join(work, a) : a))]);
      expect(r.code).toBe(2);
      expect(r.stderr.split('\n').find((l) => l.startsWith('tern-exec: '))).toMatch(/^tern-exec: export/);
    }
  });
});

describe('tern-exec import killed with SIGKILL', () => {
  const dir = join(work, 'gen');
  const files = chainFiles(dir);
  let meta: ChainMeta;
  let hashes: string[];

  beforeAll(async () => {
    // Small enough to generate quickly, long enough (several seconds of import) to be killed in the middle.
    meta = await generateChain(
      { ...DEFAULT_PARAMS, blocks: 96, blockGas: 6_000_000, senders: 60, recipients: 100, seed: 7 },
      dir,
      () => {},
    );
    const { rlpItems } = await import('../../src/main/primitives/rlpStream.js');
    const { decodeBlock } = await import('../../src/main/primitives/block/block.js');
    hashes = [...rlpItems(readFileSync(files.chain))].map((raw) => hex(headerHash(decodeBlock(raw).header)));
  }, 300_000);

  function startImport(datadir: string): { child: ChildProcess; started: Promise<void>; exited: Promise<unknown> } {
    const child = spawn(process.execPath, [BIN, '--log.format', 'json', '--datadir', datadir, 'import', files.chain], {
      env: cleanEnv(),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    // Listened for from the start: a fast import may end before the test gets to kill it.
    const exited = new Promise((r) => child.once('exit', r));
    const started = new Promise<void>((resolve, reject) => {
      let err = '';
      child.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('"Importing blockchain"')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`import exited (${code}) before it started:\n${err}`)));
    });
    return { child, started, exited };
  }

  it('serves a CPU profile during the import that go tool pprof reads, worker threads included', async () => {
    const datadir = join(work, 'profiled');
    expect(exec(['--datadir', datadir, 'init', files.genesis]).code).toBe(0);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [BIN, '--log.format', 'json', '--datadir', datadir, '--pprof', `--pprof.port=${port}`, 'import', files.chain],
      { env: cleanEnv(), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise((r) => child.once('exit', r));
    let err = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('"Importing blockchain"')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`import exited (${code}) before it started:\n${err}`)));
    });
    const res = await fetch(`http://127.0.0.1:${port}/debug/pprof/profile?seconds=2`);
    expect(res.status).toBe(200);
    const file = join(work, 'import.pb.gz');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    await exited;
    const top = execFileSync('go', ['tool', 'pprof', '-top', file], { encoding: 'utf8' });
    expect(top).toMatch(/\[thread main/);
    expect(top).toMatch(/\[thread worker/);
  }, 120_000);

  it('opens consistent after each kill and resumes to the same head', async () => {
    const datadir = join(work, 'crash');
    expect(exec(['--datadir', datadir, 'init', files.genesis]).code).toBe(0);
    let previous = -1n;
    const kills = [700, 1200, 1700, 2200];
    for (const delay of kills) {
      const { child, started, exited } = startImport(datadir);
      await started;
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited;
      const head = await headOf(datadir);
      // The head is a block of the chain being imported (or genesis), never a torn or foreign state.
      if (head.number > 0n) expect(head.hash).toBe(hashes[Number(head.number) - 1]);
      expect(head.number).toBeGreaterThanOrEqual(previous);
      previous = head.number;
    }
    expect(previous, 'no kill landed after a block was persisted').toBeGreaterThan(0n);
    expect(previous, 'every kill came after the import had finished').toBeLessThan(BigInt(meta.blocks));

    const r = exec(['--datadir', datadir, 'import', files.chain]);
    expect(r.code, r.stderr).toBe(0);
    const done = logLine(r.stderr, 'Import done');
    expect(done?.skipped).toBe(Number(previous));
    expect(done?.blocks).toBe(meta.blocks - Number(previous));
    expect((await headOf(datadir)).hash).toBe(meta.headHash);
  }, 300_000);

  it('twenty kills at random points (seeded) lose nothing: each open is a block of the chain, the last import ends on its head', async () => {
    const datadir = join(work, 'crash20');
    expect(exec(['--datadir', datadir, 'init', files.genesis]).code).toBe(0);
    const rng = xorshiftRng(20);
    let previous = 0n;
    let kills = 0;
    let finished = false;
    for (let i = 0; i < 20 && !finished; i++) {
      const { child, started, exited } = startImport(datadir);
      await started;
      // Anywhere from at once (opening, the first batch) to well into the import.
      await new Promise((r) => setTimeout(r, rng.int(600)));
      finished = child.exitCode !== null;
      child.kill('SIGKILL');
      await exited;
      if (!finished) kills++;
      const head = await headOf(datadir);
      if (head.number > 0n) expect(head.hash).toBe(hashes[Number(head.number) - 1]);
      expect(head.number, `kill ${i}: the head went back`).toBeGreaterThanOrEqual(previous);
      previous = head.number;
      finished ||= head.number === BigInt(meta.blocks);
    }
    expect(kills).toBeGreaterThanOrEqual(10);
    const r = exec(['--datadir', datadir, 'import', files.chain]);
    expect(r.code, r.stderr).toBe(0);
    expect((await headOf(datadir)).hash).toBe(meta.headHash);
  }, 300_000);
});
