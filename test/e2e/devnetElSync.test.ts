// A replica started late with `--syncmode=execution-layer` catches up through EL sync: a tern-devnet runs (sequencer,
// one replica, batcher) until the sequencer is dozens of blocks ahead, then this test starts a third pair against
// it, as an operator adds a replica to a running network: tern-exec from the L2 genesis with the sequencer's engine
// as its devp2p bootnode, and tern-node with --syncmode=execution-layer, the devnet's L1, rollup config and the
// sequencer's P2P multiaddr as a static peer. The first gossiped block hands the engine a head it lacks; the engine
// downloads the blocks before it from its devp2p peers ("Imported new chain segment", not one engine_newPayload per
// block from tern-node) and the replica's unsafe head reaches the sequencer's.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DevnetInfo, NodeInfo } from '../../src/main/devnet/launcher.js';
import { rpcCall } from '../../src/main/devnet/rpc.js';
import { ROOT } from '../helpers/paths.js';
import { cleanEnv, freePort } from '../helpers/processes.js';
import { alive, DevnetChild } from './devnetChild.js';

const BIN = { exec: join(ROOT, 'bin/tern-exec.js'), node: join(ROOT, 'bin/tern-node.js') };
/** The sequencer's lead before the late replica starts: enough blocks that one-by-one catch-up would show. */
const LEAD = 30;

let devnet: DevnetChild | undefined;
let info: DevnetInfo;
const late: Array<{ proc: ChildProcess; logs: string }> = [];

type Status = { unsafe_l2: { number: number; hash: string } };
const status = (url: string) => rpcCall<Status>(url, 'optimism_syncStatus');

function launch(bin: string, args: string[], cwd: string): { proc: ChildProcess; logs: string } {
  const proc = spawn(process.execPath, [bin, ...args], { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const p = { proc, logs: '' };
  const append = (d: Buffer) => {
    p.logs += String(d);
  };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);
  late.push(p);
  return p;
}

const output = () => `${devnet?.out ?? ''}\n--- late pair ---\n${late.map((p) => p.logs).join('\n---\n')}`;

describe('a devnet replica started late with --syncmode=execution-layer', () => {
  beforeAll(async () => {
    devnet = new DevnetChild('tern-devnet-elsync-', ['--status-interval=5', '--l1-block-time=2', '--block-time=1']);
    info = await devnet.ready(150_000);
  }, 180_000);

  afterAll(async () => {
    for (const p of late) {
      if (p.proc.exitCode !== null) continue;
      p.proc.kill('SIGTERM');
      await new Promise((r) => p.proc.once('exit', r));
    }
    for (const p of late) if (alive(p.proc.pid)) p.proc.kill('SIGKILL');
    devnet?.cleanup();
  });

  it("reaches the sequencer's unsafe head through EL sync from the engines' devp2p network", async () => {
    const seq = info.nodes[0] as NodeInfo;
    expect(seq.elP2P?.enode).toMatch(/^enode:/);
    expect(seq.p2p?.multiaddr).toMatch(/^\/ip4\//);
    await devnet?.until(`the sequencer ${LEAD} blocks ahead`, 90_000, async () =>
      (await status(seq.nodeRpc as string)).unsafe_l2.number >= LEAD ? true : undefined,
    );

    const dir = join(info.workdir, 'late');
    mkdirSync(dir, { recursive: true });
    const jwt = join(dir, 'jwt.txt');
    writeFileSync(jwt, `0x${'3c'.repeat(32)}\n`, { mode: 0o600 });
    const init = spawnSync(process.execPath, [BIN.exec, `--datadir=${join(dir, 'exec')}`, 'init', info.l2Genesis], {
      encoding: 'utf8',
      env: cleanEnv(),
    });
    expect(init.status, init.stderr).toBe(0);
    const [http, auth, p2p, nodeRpc, nodeP2p] = await Promise.all([1, 2, 3, 4, 5].map(() => freePort()));
    const exec = launch(
      BIN.exec,
      [
        `--datadir=${join(dir, 'exec')}`,
        '--http',
        '--http.addr=127.0.0.1',
        `--http.port=${http}`,
        '--http.api=eth,net,admin',
        '--authrpc.addr=127.0.0.1',
        `--authrpc.port=${auth}`,
        `--authrpc.jwtsecret=${jwt}`,
        '--ipcdisable',
        `--port=${p2p}`,
        '--nat=extip:127.0.0.1',
        `--bootnodes=${seq.elP2P?.enode}`,
        '--syncmode=full',
        '--log.format=logfmt',
      ],
      dir,
    );
    const execRpc = `http://127.0.0.1:${http}`;
    await devnet?.until('the late engine to answer', 60_000, async () => rpcCall<string>(execRpc, 'eth_chainId'));
    const node = launch(
      BIN.node,
      [
        `--l1=${info.l1.rpc}`,
        `--l1.beacon=${info.l1.beacon}`,
        `--l2=http://127.0.0.1:${auth}`,
        `--l2.jwt-secret=${jwt}`,
        `--rollup.config=${info.rollupConfig}`,
        `--rollup.l1-chain-config=${info.l1Genesis}`,
        '--rpc.addr=127.0.0.1',
        `--rpc.port=${nodeRpc}`,
        '--syncmode=execution-layer',
        `--p2p.priv.path=${join(dir, 'p2p-key.txt')}`,
        '--p2p.listen.ip=127.0.0.1',
        `--p2p.listen.tcp=${nodeP2p}`,
        '--p2p.peerstore.path=memory',
        '--p2p.no-discovery',
        `--p2p.static=${seq.p2p?.multiaddr}`,
        '--l1.http-poll-interval=1s',
        '--l1.epoch-poll-interval=4s',
        '--log.format=logfmt',
      ],
      dir,
    );
    const url = `http://127.0.0.1:${nodeRpc}`;
    // While the engine syncs, the node already reports the sync target as its unsafe head (as op-node does): wait
    // for the end of EL sync and for the engine to hold the head the node reports.
    const reached = await devnet?.until("the late replica to reach the sequencer's head", 120_000, async () => {
      if (!node.logs.includes('Finished EL sync')) return undefined;
      const [s, r] = await Promise.all([status(seq.nodeRpc as string), status(url)]);
      if (r.unsafe_l2.number < LEAD || s.unsafe_l2.number - r.unsafe_l2.number > 1) return undefined;
      const mine = await rpcCall<{ hash: string }>(execRpc, 'eth_getBlockByNumber', [
        `0x${r.unsafe_l2.number.toString(16)}`,
        false,
      ]);
      return mine?.hash === r.unsafe_l2.hash ? r : undefined;
    });
    expect(reached?.unsafe_l2.number).toBeGreaterThanOrEqual(LEAD);
    // The block the replica calls its head is the sequencer's block at that height.
    const n = reached?.unsafe_l2.number as number;
    const seqBlock = await rpcCall<{ hash: string }>(seq.execRpc, 'eth_getBlockByNumber', [
      `0x${n.toString(16)}`,
      false,
    ]);
    expect(reached?.unsafe_l2.hash).toBe(seqBlock?.hash);
    // No block came over the consensus layer's req-resp: the node left the gap to its engine.
    expect(node.logs).not.toMatch(/Filling an unsafe gap over req-resp/);
    // The blocks before the first gossiped one came from devp2p peers, in segments.
    expect(exec.logs, output()).toMatch(/Imported new chain segment/);
    expect(Number(await rpcCall<string>(execRpc, 'net_peerCount'))).toBeGreaterThan(0);
    expect(node.proc.exitCode).toBeNull();
    expect(exec.proc.exitCode).toBeNull();
  }, 300_000);
});
