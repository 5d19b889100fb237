// --remotedb as an operator uses it: a tern-exec serving the execution-apis chain over HTTP (debug API), and
// `export` / `export-history` run by another process against it with an empty --datadir, reading every key and
// ancient item through debug_dbGet / debug_dbAncient. Their files must be byte for byte those of the same
// commands run on the serving node's own database; commands that write are refused.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/main/common/logger/index.js';
import { execTernExec } from '../helpers/execProcesses.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort } from '../helpers/processes.js';
import { buildTestChain, EXECUTION_APIS } from '../unit/main/exec/rpc/chain.js';

const BIN = join(ROOT, 'bin/tern-exec.js');
const work = mkdtempSync(join(tmpdir(), 'tern-remotedb-'));
const source = join(work, 'source');
const empty = join(work, 'empty');
let server: ChildProcess | undefined;
let url = '';
let wsUrl = '';
const ipcPath = join(work, 'source.ipc');

const exec = execTernExec;

beforeAll(async () => {
  const logger = createLogger({ level: 'silent', format: 'json' }).logger;
  const { db } = await buildTestChain(logger, source);
  await db.close();
  const port = await freePort();
  const wsPort = await freePort();
  url = `http://127.0.0.1:${port}`;
  wsUrl = `ws://127.0.0.1:${wsPort}`;
  server = spawn(
    process.execPath,
    [
      BIN,
      '--datadir',
      source,
      '--http',
      '--http.addr',
      '127.0.0.1',
      '--http.port',
      String(port),
      '--http.api',
      'eth,debug',
      '--ws',
      '--ws.addr',
      '127.0.0.1',
      '--ws.port',
      String(wsPort),
      '--ws.api',
      'eth,debug',
      '--authrpc.port',
      '0',
      '--ipcpath',
      ipcPath,
    ],
    { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('auth=false') && out.includes('IPC endpoint opened') && out.includes('WebSocket enabled'))
        resolve();
    };
    server?.stdout?.on('data', onData);
    server?.stderr?.on('data', onData);
    server?.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}, 120_000);

afterAll(() => {
  server?.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

describe('--remotedb', () => {
  it('export reads the remote chain: the same file as a local export', () => {
    const local = join(work, 'local.rlp');
    const remote = join(work, 'remote.rlp');
    expect(exec(['--datadir', source, 'export', local]).code).toBe(0);
    const r = exec(['--datadir', empty, '--remotedb', url, 'export', remote]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(remote).equals(readFileSync(local))).toBe(true);
    expect(readFileSync(remote).length).toBeGreaterThan(1000);
  });

  it('reads the remote chain over WS and IPC as well (geth dials either)', () => {
    const local = join(work, 'local-any.rlp');
    expect(exec(['--datadir', source, 'export', local]).code).toBe(0);
    for (const [name, endpoint] of [
      ['ws', wsUrl],
      ['ipc', ipcPath],
      ['ipc-prefixed', `ipc:${ipcPath}`],
    ]) {
      const remote = join(work, `remote-${name}.rlp`);
      const r = exec(['--datadir', empty, '--remotedb', endpoint, 'export', remote]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(readFileSync(remote).equals(readFileSync(local)), name).toBe(true);
    }
  });

  it('export-history reads the remote chain: the same era1 archive', () => {
    const localDir = join(work, 'eras-local');
    const remoteDir = join(work, 'eras-remote');
    expect(exec(['--datadir', source, 'export-history', localDir, '0', '20']).code).toBe(0);
    const r = exec(['--datadir', empty, '--remotedb', url, 'export-history', remoteDir, '0', '20']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(remoteDir)).toEqual(readdirSync(localDir));
    expect(readFileSync(join(remoteDir, 'checksums.txt'), 'utf8')).toBe(
      readFileSync(join(localDir, 'checksums.txt'), 'utf8'),
    );
  });

  it('refuses commands that write, another URL scheme and an unreachable node with one line', async () => {
    let r = exec(['--datadir', empty, '--remotedb', url, 'init', join(EXECUTION_APIS, 'genesis.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--remotedb serves the read-only commands \(export, export-history\); init needs the local/,
    );
    r = exec(['--datadir', empty, '--remotedb', url.replace('http', 'ftp'), 'export', join(work, 'x.rlp')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/over http\(s\):\/\/, ws\(s\):\/\/ or an IPC socket path/);
    r = exec(['--datadir', empty, '--remotedb', join(work, 'nothing.ipc'), 'export', join(work, 'z.rlp')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/remote database .*nothing\.ipc: ENOENT/);
    r = exec(['--datadir', empty, '--remotedb', `http://127.0.0.1:${await freePort()}`, 'export', join(work, 'y.rlp')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/remote database http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });
});
