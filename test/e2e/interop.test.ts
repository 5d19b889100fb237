// tern-node as a supervisor meets it: the real program (bin/ over dist/) with --interop.rpc.addr serves the interop
// namespace over WebSocket, authenticated with the JWT secret it writes to --interop.jwt-secret; a connection
// without a token is refused with the reason; a bad dependency set stops startup with a clear error.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { signJwt } from '../../src/main/common/rpc/jwt.js';
import { ROOT } from '../helpers/paths.js';

const BIN = join(ROOT, 'bin/tern-node.js');
// Nothing answers on port 9: the replica retries L1 and the engine while the interop server is up.
const NODE_ARGS = ['--network=op-sepolia', '--l1=http://127.0.0.1:9', '--l2=http://127.0.0.1:9', '--rpc.port=0'];
const OP_SEPOLIA_CHAIN_ID = '11155420';

function chainIdOver(url: string, token: string | undefined): Promise<string> {
  const ws = new WebSocket(url, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  return new Promise((resolve, reject) => {
    ws.once('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'interop_chainID', params: [] })));
    ws.once('message', (d) => {
      ws.close();
      resolve(String(d));
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += String(c);
      });
      res.on('end', () => reject(new Error(`${res.statusCode} ${body.trim()}`)));
    });
    ws.once('error', reject);
  });
}

describe('tern-node --interop.rpc.addr', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'tern-node-interop-'));
  let child: ChildProcess;
  let url = '';

  beforeAll(async () => {
    const depset = join(cwd, 'depset.json');
    writeFileSync(
      depset,
      JSON.stringify({
        dependencies: { [OP_SEPOLIA_CHAIN_ID]: { chainIndex: 0, activationTime: 0, historyMinTime: 0 } },
      }),
    );
    child = spawn(
      process.execPath,
      [
        BIN,
        ...NODE_ARGS,
        '--p2p.disable',
        '--interop.rpc.addr=127.0.0.1',
        '--interop.rpc.port=0',
        '--interop.jwt-secret=interop-jwt.txt',
        `--interop.dependency-set=${depset}`,
      ],
      { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no interop RPC in time:\n${output}`)), 20_000);
      const onData = (d: Buffer) => {
        output += d.toString();
        const m = /Started interop RPC.*endpoint=(ws:\/\/\S+)/.exec(output);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`tern-node exited (${code}):\n${output}`)));
    });
  });

  afterAll(() => {
    child?.kill('SIGTERM');
  });

  it('answers interop_chainID with a valid JWT from the secret file it wrote (mode 0600)', async () => {
    const path = join(cwd, 'interop-jwt.txt');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const secret = Buffer.from(readFileSync(path, 'utf8').trim().slice(2), 'hex');
    const reply = JSON.parse(await chainIdOver(url, signJwt(secret)));
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, result: OP_SEPOLIA_CHAIN_ID });
  });

  it('refuses a connection without a JWT, or with one signed by another secret, with the reason', async () => {
    await expect(chainIdOver(url, undefined)).rejects.toThrow('401 missing token');
    await expect(chainIdOver(url, signJwt(new Uint8Array(32).fill(1)))).rejects.toThrow('401 signature is invalid');
  });

  it('stops at startup on an invalid dependency set, naming the file and the problem', () => {
    const bad = join(cwd, 'bad-depset.json');
    writeFileSync(bad, JSON.stringify({ dependencies: { '10': { chainIndex: 3 }, '11': { chainIndex: 3 } } }));
    const r = spawnSync(process.execPath, [BIN, ...NODE_ARGS, '--p2p.disable', `--interop.dependency-set=${bad}`], {
      cwd,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).not.toBe(0);
    expect(`${r.stdout}${r.stderr}`).toContain(`invalid dependency set ${bad}: duplicate chain index`);
  });
});
