// The console as an operator uses it: `attach` to a running tern-exec over IPC (default) and HTTP with --header,
// --exec, --preload with --jspath, piped interactive input, and `console` starting its own node.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execTernExec } from '../helpers/execProcesses.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort } from '../helpers/processes.js';

const BIN = join(ROOT, 'bin/tern-exec.js');
const APIS = join(FIXTURES, 'execution-apis/tests');
const work = mkdtempSync(join(tmpdir(), 'tern-console-'));
const datadir = join(work, 'data');

const exec = execTernExec;

let node: ChildProcess;
let port: number;

beforeAll(async () => {
  expect(exec(['--datadir', datadir, 'init', join(APIS, 'genesis.json')]).code).toBe(0);
  expect(exec(['--datadir', datadir, 'import', join(APIS, 'chain.rlp')]).code).toBe(0);
  port = await freePort();
  const args = ['--datadir', datadir, '--http', '--http.port', String(port), '--http.api', 'eth,net,web3'];
  node = spawn(process.execPath, [BIN, ...args, '--authrpc.port', String(await freePort())], {
    env: cleanEnv(),
    stdio: 'ignore',
  });
  const ipc = join(datadir, 'tern-exec.ipc');
  for (let i = 0; i < 200 && !existsSync(ipc); i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 300));
}, 120_000);

afterAll(async () => {
  node.kill('SIGTERM');
  await new Promise((r) => node.once('exit', r));
  rmSync(work, { recursive: true, force: true });
});

describe('tern-exec attach', () => {
  it('--exec over IPC prints the result', () => {
    const r = exec(['--datadir', datadir, 'attach', '--exec', 'eth.blockNumber']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('20');
    const chain = exec(['--datadir', datadir, 'attach', '--exec', 'eth.chainId()']);
    expect(chain.stdout.trim()).toBe('3503995874084926');
  });

  it('over HTTP with --header, and with --preload relative to --jspath', () => {
    const lib = join(work, 'js');
    mkdirSync(lib, { recursive: true });
    writeFileSync(join(lib, 'helpers.js'), 'function head() { return eth.blockNumber; }\n');
    const r = exec([
      'attach',
      `http://127.0.0.1:${port}`,
      '-H',
      'X-Tern-Test: yes',
      '--jspath',
      lib,
      '--preload',
      'helpers.js',
      '--exec',
      'head()',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('20');
    const v = exec(['attach', `http://127.0.0.1:${port}`, '--exec', 'web3.clientVersion']);
    expect(v.stdout).toMatch(/tern-exec\/v/);
  });

  it('reads statements from piped input', () => {
    const r = exec(['--datadir', datadir, 'attach'], 'eth.blockNumber\nnet.version\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('20');
  });

  it('names the endpoint when nothing listens there', () => {
    const r = exec(['attach', join(work, 'nope.ipc'), '--exec', '1']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot attach to .*nope\.ipc: ENOENT/);
  });
});

describe('tern-exec console', () => {
  it('starts its own node and runs --exec against it', async () => {
    const own = join(work, 'own');
    expect(exec(['--datadir', own, 'init', join(APIS, 'genesis.json')]).code).toBe(0);
    const authPort = String(await freePort());
    const r = exec(['--datadir', own, '--authrpc.port', authPort, 'console', '--exec', 'eth.blockNumber']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('0');
  });
});
