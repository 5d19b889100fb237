// The seed's configuration profiles start as written (adapted only for the data directory and free ports; nothing
// beyond loopback is reachable here, so the nodes may have no peers and no L1): tern-exec's "Minimum (full node, not
// sequencer)" and "Production additions", and tern-node's "Replica, minimum" and "Replica, production additions".
// Each runs until it serves its RPC, answers on every listener the profile opens, and logs no refusal.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { requireRegistryNetwork } from '../../src/main/networks/registry.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort, rpc } from '../helpers/processes.js';

const BIN = { 'tern-node': join(ROOT, 'bin/tern-node.js'), 'tern-exec': join(ROOT, 'bin/tern-exec.js') };
const work = mkdtempSync(join(tmpdir(), 'tern-profiles-'));
const NETWORK = 'op-sepolia';
const CHAIN_ID = `0x${requireRegistryNetwork(NETWORK).chain.chain_id.toString(16)}`;
const JWT = join(work, 'jwt.hex');
writeFileSync(JWT, `0x${'7a'.repeat(32)}`);

function wsRpc<T>(url: string, method: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] })));
    ws.once('message', (data) => {
      ws.close();
      const body = JSON.parse(String(data)) as { result?: T; error?: { message: string } };
      if (body.error) reject(new Error(body.error.message));
      else resolve(body.result as T);
    });
  });
}

interface Running {
  proc: ChildProcess;
  logs: string;
}

const running: Running[] = [];

const servers: Server[] = [];

/**
 * A stand-in for the L1 beacon node: the two endpoints tern-node's startup health check reads (Sepolia's beacon
 * genesis time and slot length), 404 for the rest. The real beacon is out of reach here.
 */
async function beaconStandIn(): Promise<string> {
  const server = createHttpServer((req, res) => {
    const body =
      req.url === '/eth/v1/beacon/genesis'
        ? { data: { genesis_time: '1655733600' } }
        : req.url === '/eth/v1/config/spec'
          ? { data: { SECONDS_PER_SLOT: '12' } }
          : undefined;
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { code: 404, message: 'not found' }));
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

afterAll(async () => {
  for (const s of servers) s.close();
  for (const r of running) {
    if (r.proc.exitCode !== null) continue;
    r.proc.kill('SIGTERM');
    await new Promise((done) => r.proc.once('exit', done));
  }
  rmSync(work, { recursive: true, force: true });
});

/** Starts a program and waits until `ready` answers (or it exits, which fails the test with its output). */
async function start(program: keyof typeof BIN, args: string[], ready: () => Promise<unknown>): Promise<Running> {
  const proc = spawn(process.execPath, [BIN[program], ...args], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const r: Running = { proc, logs: '' };
  running.push(r);
  const append = (d: Buffer) => {
    r.logs += String(d);
  };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);
  const end = Date.now() + 150_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${program} exited with ${proc.exitCode}:\n${r.logs}`);
    try {
      await ready();
      return r;
    } catch (e) {
      if (Date.now() > end) throw new Error(`${program} never answered (${String(e)}):\n${r.logs}`);
      await new Promise((done) => setTimeout(done, 250));
    }
  }
}

async function logged(r: Running, line: string): Promise<void> {
  for (let i = 0; i < 120 && !r.logs.includes(line); i++) await new Promise((done) => setTimeout(done, 250));
  expect(r.logs).toContain(line);
}

/** A refusal: a flag not supported, a bad value, or any error-level line. */
const REFUSAL = /not supported yet|tern-(exec|node): |lvl=(eror|error|crit)/i;

async function execMinimum(name: string) {
  const [http, auth, p2p] = [await freePort(), await freePort(), await freePort()];
  const args = [
    `--datadir=${join(work, name)}`,
    '--http',
    '--http.addr=127.0.0.1',
    `--http.port=${http}`,
    '--http.api=eth,net,web3',
    '--authrpc.addr=127.0.0.1',
    `--authrpc.port=${auth}`,
    `--authrpc.jwtsecret=${JWT}`,
    `--stack-network=${NETWORK}`,
    '--syncmode=full',
    '--maxpeers=50',
    '--rollup.disabletxpoolgossip',
    // Free ports instead of the default 30303 (the only adaptation besides the datadir).
    `--port=${p2p}`,
    '--log.format=logfmt',
  ];
  return { args, url: `http://127.0.0.1:${http}`, auth: `http://127.0.0.1:${auth}` };
}

describe("tern-exec: the seed's profiles", () => {
  it('Minimum (full node, not sequencer) starts and serves eth_chainId', async () => {
    const { args, url } = await execMinimum('exec-minimum');
    const node = await start('tern-exec', args, () => rpc(url, 'eth_chainId'));
    expect(await rpc(url, 'eth_chainId')).toBe(CHAIN_ID);
    expect(await rpc(url, 'web3_clientVersion')).toMatch(/^tern-exec/);
    expect(await rpc(url, 'net_listening')).toBe(true);
    await new Promise((done) => setTimeout(done, 1000));
    expect(node.proc.exitCode).toBeNull();
    expect(node.logs).not.toMatch(REFUSAL);
  }, 180_000);

  it('Minimum + Production additions starts and serves HTTP, WebSocket and metrics', async () => {
    const { args, url } = await execMinimum('exec-production');
    const [ws, metrics] = [await freePort(), await freePort()];
    const node = await start(
      'tern-exec',
      [
        ...args,
        // The seed's `*` is for illustration; production names its hosts and origins.
        '--http.vhosts=localhost,127.0.0.1',
        '--http.corsdomain=https://ops.example.org',
        '--ws',
        '--ws.addr=127.0.0.1',
        `--ws.port=${ws}`,
        '--ws.api=eth,net,web3',
        '--gcmode=full',
        '--cache=4096',
        '--metrics',
        '--metrics.addr=127.0.0.1',
        `--metrics.port=${metrics}`,
      ],
      () => rpc(url, 'eth_chainId'),
    );
    expect(await rpc(url, 'eth_chainId')).toBe(CHAIN_ID);
    expect(await wsRpc(`ws://127.0.0.1:${ws}`, 'eth_chainId')).toBe(CHAIN_ID);
    const m = await fetch(`http://127.0.0.1:${metrics}/debug/metrics/prometheus`);
    expect(m.status).toBe(200);
    expect(await m.text()).toMatch(/^# TYPE /m);
    // A CORS preflight from the allowed origin is answered with it.
    const pre = await fetch(url, {
      method: 'OPTIONS',
      headers: { origin: 'https://ops.example.org', 'access-control-request-method': 'POST' },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://ops.example.org');
    await new Promise((done) => setTimeout(done, 1000));
    expect(node.proc.exitCode).toBeNull();
    expect(node.logs).not.toMatch(REFUSAL);
  }, 180_000);
});

describe("tern-node: the seed's replica profiles, against a tern-exec started with its minimum profile", () => {
  async function replicaMinimum(name: string) {
    const exec = await execMinimum(`${name}-exec`);
    await start('tern-exec', exec.args, () => rpc(exec.url, 'eth_chainId'));
    const [rpcPort, tcp, udp] = [await freePort(), await freePort(), await freePort()];
    // Nothing listens on the L1 address: the node must still start, serve its RPC and keep retrying L1.
    const l1 = `http://127.0.0.1:${await freePort()}`;
    const args = [
      `--l1=${l1}`,
      `--l2=${exec.auth}`,
      `--l2.jwt-secret=${JWT}`,
      `--network=${NETWORK}`,
      '--rpc.addr=127.0.0.1',
      `--rpc.port=${rpcPort}`,
      // Free ports instead of the default 9222, and the working directory for the P2P key.
      `--p2p.listen.tcp=${tcp}`,
      `--p2p.listen.udp=${udp}`,
      `--p2p.priv.path=${join(work, name, 'p2p.key')}`,
      `--p2p.discovery.path=${join(work, name, 'discovery')}`,
      `--p2p.peerstore.path=${join(work, name, 'peerstore')}`,
      '--log.format=logfmt',
    ];
    mkdirSync(join(work, name), { recursive: true });
    return { args, url: `http://127.0.0.1:${rpcPort}` };
  }

  it('Replica, minimum starts, serves optimism_version and reads its heads from tern-exec', async () => {
    const { args, url } = await replicaMinimum('node-minimum');
    const node = await start('tern-node', args, () => rpc(url, 'optimism_version'));
    expect(await rpc(url, 'optimism_version')).toMatch(/^v\d/);
    await logged(node, 'Started tern-node');
    // The engine answered over the authenticated port with the shared JWT secret: block 0 of the network.
    expect(node.logs).toMatch(/Loaded current L2 heads.*unsafe=0x[0-9a-f]{64}:0/);
    expect(node.proc.exitCode).toBeNull();
    expect(node.logs).not.toMatch(REFUSAL);
  }, 180_000);

  it('Replica, production additions starts and serves admin RPC, metrics and pprof', async () => {
    const { args, url } = await replicaMinimum('node-production');
    const [metrics, pprof] = [await freePort(), await freePort()];
    const node = await start(
      'tern-node',
      [
        ...args,
        `--l1.beacon=${await beaconStandIn()}`,
        '--rpc.enable-admin',
        '--metrics.enabled',
        '--metrics.addr=127.0.0.1',
        `--metrics.port=${metrics}`,
        '--pprof.enabled',
        '--pprof.addr=127.0.0.1',
        `--pprof.port=${pprof}`,
        '--p2p.disable=false',
        '--p2p.listen.ip=127.0.0.1',
      ],
      () => rpc(url, 'optimism_version'),
    );
    expect(await rpc(url, 'admin_sequencerActive')).toBe(false);
    const m = await fetch(`http://127.0.0.1:${metrics}/metrics`);
    expect(m.status).toBe(200);
    expect(await m.text()).toMatch(/^# TYPE /m);
    expect((await fetch(`http://127.0.0.1:${pprof}/debug/pprof/`)).status).toBe(200);
    await logged(node, 'Started tern-node');
    expect(node.logs).toMatch(/P2P host started.*\/ip4\/127\.0\.0\.1\/tcp\//);
    await new Promise((done) => setTimeout(done, 1000));
    expect(node.proc.exitCode).toBeNull();
    expect(node.logs).not.toMatch(REFUSAL);
  }, 180_000);
});
